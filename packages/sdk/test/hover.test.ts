/**
 * What an editor shows on hover over a field of a call's payload or query: the field's meaning
 * from the contract (`FIELD_DESCRIPTIONS`), e.g. that an amount is in the minor unit of its
 * currency, not only `number`; and over a field of what a call returns: its meaning from the
 * resource's schema (the JSDoc of its field in `@app/schemas`). Asked of TypeScript's language
 * service, as an editor asks it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FIELD_DESCRIPTIONS, RESOURCE_FIELD_DESCRIPTIONS } from '@app/schemas';
import ts from 'typescript';
import { expect, test } from 'vitest';

const fixture = fileURLToPath(new URL('./types/hover.ts', import.meta.url));
const baseConfig = fileURLToPath(new URL('../../../tsconfig.base.json', import.meta.url));

function languageService(): ts.LanguageService {
  const { config } = ts.readConfigFile(baseConfig, (path) => ts.sys.readFile(path));
  const { options } = ts.parseJsonConfigFileContent(
    config,
    ts.sys,
    fileURLToPath(new URL('.', import.meta.url)),
  );
  return ts.createLanguageService({
    getScriptFileNames: () => [fixture],
    getScriptVersion: () => '1',
    getScriptSnapshot: (f) =>
      ts.sys.fileExists(f) ? ts.ScriptSnapshot.fromString(ts.sys.readFile(f) ?? '') : undefined,
    getCurrentDirectory: () => process.cwd(),
    getCompilationSettings: () => ({ ...options, noEmit: true }),
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  });
}

function hover(needles: readonly string[]): Record<string, { type: string; doc: string }> {
  const text = readFileSync(fixture, 'utf8');
  const service = languageService();
  const shown: Record<string, { type: string; doc: string }> = {};
  for (const needle of needles) {
    // At the needle's last name: `privacy_setting: 'public'` at `privacy_setting`, `collab.state` at
    // `state`; or at its `|`: `Collab: |Collab;` at the second `Collab`.
    const bare = needle.replace('|', '');
    const at = needle.includes('|') ? needle.indexOf('|') : needle.lastIndexOf('.') + 1;
    const info = service.getQuickInfoAtPosition(fixture, text.indexOf(bare) + at);
    shown[needle] = {
      type: ts.displayPartsToString(info?.displayParts),
      doc: ts.displayPartsToString(info?.documentation),
    };
  }
  return shown;
}

// The language service type-checks the SDK's sources: seconds of CPU, not the subject of the test.
test('a payload or query field shows what it means, its enum values and its type', {
  timeout: 120_000,
}, () => {
  const shown = hover([
    'page: 2',
    "privacy_setting: 'public'",
    'cpm_amount: 500',
    "currency: 'usd'",
    'max_payout_amount: 0',
    'base_reward_amount: 100',
    "countries: ['US']",
    "permission: 'read'",
  ]);
  const field = (needle: string) => needle.slice(0, needle.indexOf(':'));
  for (const [needle, { doc }] of Object.entries(shown))
    expect(doc, needle).toBe(FIELD_DESCRIPTIONS[field(needle)]);
  expect(shown['cpm_amount: 500']?.doc).toContain('minor unit of `currency`');
  expect(shown["privacy_setting: 'public'"]?.type).toBe(
    '(property) privacy_setting?: "public" | "private" | "restricted" | undefined',
  );
  expect(shown['cpm_amount: 500']?.type).toBe('(property) cpm_amount?: number | undefined');
});

/**
 * Every field of what the client's methods resolve to (`APIPromise<T>`, a page's items of
 * `PagePromise<T>`) and of each endpoint's `Result<E>`, and of the objects within (a member's
 * `user`), whose hover shows no description, as `client.members.list().user.email` (the first
 * call found that returns it).
 */
function undocumentedResultFields(): string[] {
  const service = languageService();
  const program = service.getProgram();
  const source = program?.getSourceFile(fixture);
  if (!program || !source) throw new Error('the fixture did not compile');
  const checker = program.getTypeChecker();
  const client = source.statements
    .flatMap((statement) => (ts.isVariableStatement(statement) ? statement.declarationList.declarations : []))
    .find((declaration) => declaration.name.getText(source) === 'client');
  if (!client) throw new Error('the fixture declares no client');

  // Each type a call resolves to, named by the first call found that resolves to it.
  const results = new Map<ts.Type, string>();
  const walkResources = (type: ts.Type, path: string, depth: number) => {
    for (const property of type.getProperties()) {
      if (property.name.startsWith('#') || property.name.startsWith('_')) continue;
      const member = checker.getTypeOfSymbolAtLocation(property, client);
      for (const signature of member.getCallSignatures()) {
        const returned = signature.getReturnType();
        const name = returned.getSymbol()?.getName();
        if (name !== 'APIPromise' && name !== 'PagePromise') continue;
        // The client's own generic `request(endpoint, …)` resolves to a type still open.
        for (const argument of checker.getTypeArguments(returned as ts.TypeReference))
          if (
            !(argument.flags & (ts.TypeFlags.TypeVariable | ts.TypeFlags.Conditional)) &&
            !results.has(argument)
          )
            results.set(argument, `${path}${property.name}()`);
      }
      // A resource (`client.collabs`) or a group of them (`client.me`): its methods, a level down.
      if (depth < 2 && member.getCallSignatures().length === 0 && member.flags & ts.TypeFlags.Object)
        walkResources(member, `${path}${property.name}.`, depth + 1);
    }
  };
  walkResources(checker.getTypeAtLocation(client), 'client.', 0);
  // And `Result<E>` of every endpoint, as `client.request(endpoint)` resolves to it: named after
  // one resource (`Collab`, `Organization[]`), or `undefined`.
  const unnamed: string[] = [];
  const table = source.statements.find(
    (statement) => ts.isTypeAliasDeclaration(statement) && statement.name.text === 'EndpointResults',
  );
  if (!table) throw new Error('the fixture declares no EndpointResults');
  for (const group of checker.getTypeAtLocation(table).getProperties())
    for (const call of checker.getTypeOfSymbolAtLocation(group, client).getProperties()) {
      const result = checker.getTypeOfSymbolAtLocation(call, client);
      const name = `Result<endpoints.${group.name}.${call.name}>`;
      if (!/^(undefined|[A-Z]\w*(\[\])?)$/.test(checker.typeToString(result)))
        unnamed.push(`${name}: ${checker.typeToString(result)}`);
      results.set(result, name);
    }

  const missing = new Set<string>(unnamed);
  const seen = new Set<ts.Type>();
  const walkFields = (type: ts.Type, owner: string): void => {
    const shown = checker.getNonNullableType(type);
    if (shown.isUnion()) {
      for (const member of shown.types) walkFields(member, owner);
      return;
    }
    if (checker.isArrayType(shown)) {
      walkFields(checker.getTypeArguments(shown as ts.TypeReference)[0]!, owner);
      return;
    }
    // Strings (branded ids are `string & { … }`), numbers, booleans, records: nothing to hover inside.
    if (!(shown.flags & ts.TypeFlags.Object) || seen.has(shown)) return;
    seen.add(shown);
    for (const property of shown.getProperties()) {
      const doc = ts.displayPartsToString(property.getDocumentationComment(checker)).trim();
      if (doc === '') missing.add(`${owner}.${property.name}`);
      walkFields(checker.getTypeOfSymbolAtLocation(property, client), `${owner}.${property.name}`);
    }
  };
  for (const [result, call] of results) walkFields(result, call);
  if (results.size < 20) throw new Error(`only ${results.size} result types found: the walk is broken`);
  return [...missing].sort();
}

test('a field of what a call returns shows what it means', { timeout: 120_000 }, () => {
  const shown = hover(['campaign.unused_amount', 'collab.state', 'member.user.email']);
  expect(shown['campaign.unused_amount']).toEqual({
    type: '(property) unused_amount: number',
    doc: 'Of the budget, what is left: total_budget_amount - used_amount (read-only)',
  });
  expect(shown['collab.state']?.doc).toContain('submitted_for_review (after submit)');
  expect(shown['member.user.email']?.doc).toBe("The user's e-mail address");
  expect(undocumentedResultFields()).toEqual([]);
});

test('a field of an endpoint’s Result or Item shows what it means, the type its resource’s name', {
  timeout: 120_000,
}, () => {
  const shown = hover([
    'shownCollab.state',
    'listedMember.user.email',
    'shownAddress.city',
    '  |shownCollab: Result',
    '  |listedMember: Item',
  ]);
  expect(shown['shownCollab.state']?.doc).toContain('submitted_for_review (after submit)');
  expect(shown['listedMember.user.email']?.doc).toBe("The user's e-mail address");
  expect(shown['shownAddress.city']?.doc).toBe(RESOURCE_FIELD_DESCRIPTIONS.Address?.city);
  expect(shown['  |shownCollab: Result']?.type).toBe('(parameter) shownCollab: Collab');
  expect(shown['  |listedMember: Item']?.type).toBe('(parameter) listedMember: Membership');
});

test('a resource type shows as one object of its fields, with their types', { timeout: 120_000 }, () => {
  const names = Object.keys(RESOURCE_FIELD_DESCRIPTIONS);
  const shown = hover(names.map((name) => `  ${name}: |${name};`));
  for (const name of names) {
    const { type } = shown[`  ${name}: |${name};`] ?? { type: '' };
    // Not `{ id: …; name: string } & { id?: unknown; name?: unknown }`: a second block of the same fields.
    expect(type, name).toMatch(new RegExp(`^\\(alias\\) type ${name} = \\{\\n[^]*\\n\\}\\nimport ${name}$`));
    expect(type, name).not.toMatch(/\?: unknown;/);
    expect(type, name).not.toContain('} & {');
  }
  expect(shown['  Collab: |Collab;']?.type).toContain(
    '\n    state: "draft" | "submitted_for_review" | "published" | "paused";\n',
  );
  expect(shown['  Membership: |Membership;']?.type).toContain('\n    user: User;\n');
});
