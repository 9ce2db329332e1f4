import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Parser } from 'htmlparser2';
import { describe, expect, it, onTestFinished } from 'vitest';
import { renderBrief } from './brief.js';

/** Classic XSS vectors (OWASP XSS filter evasion cheat sheet and friends), as Markdown input. */
const PAYLOADS = [
  '<script>alert(1)</script>',
  '<SCRIPT SRC=https://xss.example/xss.js></SCRIPT>',
  '<img src=x onerror=alert(1)>',
  '<IMG SRC="javascript:alert(\'XSS\');">',
  '<IMG SRC=JaVaScRiPt:alert(1)>',
  '<img src=x:alert(alt) onerror=eval(src) alt=0>',
  '<svg onload=alert(1)>',
  '<svg><script>alert(1)</script></svg>',
  '<body onload=alert(1)>',
  '<details open ontoggle=alert(1)>',
  '<a href="javascript:alert(1)">x</a>',
  '<a href="JaVaScRiPt:alert(1)">x</a>',
  '<a href=" javascript:alert(1)">x</a>',
  '<a href="jav&#x09;ascript:alert(1)">x</a>',
  '<a href="jav&#x0A;ascript:alert(1)">x</a>',
  '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">x</a>',
  '<a href="&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3A;alert(1)">x</a>',
  '<a href="java\0script:alert(1)">x</a>',
  '<a href="vbscript:msgbox(1)">x</a>',
  '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
  '<a href="//evil.example">x</a>',
  '[x](javascript:alert(1))',
  '[x](JAVASCRIPT:alert(1))',
  '[x](&#106;avascript:alert(1))',
  '[x](data:text/html,<script>alert(1)</script>)',
  '![x](javascript:alert(1))',
  '![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)',
  '<iframe src="https://evil.example"></iframe>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<object data="javascript:alert(1)"></object>',
  '<embed src="javascript:alert(1)">',
  '<form action="javascript:alert(1)"><input type=submit></form>',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<link rel=stylesheet href="javascript:alert(1)">',
  '<base href="javascript:alert(1)//">',
  '<style>@import "https://evil.example/x.css"</style>',
  '<p style="background:url(javascript:alert(1))">s</p>',
  '<div style="width: expression(alert(1))">s</div>',
  '<!--<img src="--><img src=x onerror=alert(1)//">',
  '<!-- --!><img src=x onerror=alert(1)> -->',
  '<scr<script>ipt>alert(1)</script>',
  '<<script>script>alert(1)<</script>/script>',
  '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
  '<table background="javascript:alert(1)"><tr><td>x</td></tr></table>',
  '<a href="https://ok.example" onclick="alert(1)" onmouseover=alert(1)>x</a>',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
  '<textarea><script>alert(1)</script></textarea>',
];

const DANGEROUS_TAGS = new Set([
  'script',
  'iframe',
  'frame',
  'object',
  'embed',
  'svg',
  'math',
  'style',
  'link',
  'meta',
  'base',
  'form',
  'input',
  'textarea',
  'noscript',
  'body',
  'details',
]);

/** Every element and attribute of the output, as a browser's parser would see them. */
function elementsOf(html: string) {
  const elements: Array<{ name: string; attribs: Record<string, string> }> = [];
  const parser = new Parser(
    { onopentag: (name, attribs) => elements.push({ name, attribs }) },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return elements;
}

describe('renderBrief', () => {
  it('renders Markdown to HTML', async () => {
    expect(await renderBrief('## Deliverables\n\n- one *video*\n- `code`\n\n> quote')).toBe(
      '<h2>Deliverables</h2>\n<ul>\n<li>one <em>video</em></li>\n<li><code>code</code></li>\n</ul>\n<blockquote>\n<p>quote</p>\n</blockquote>',
    );
  });

  it('keeps http(s) and mailto links, with rel="nofollow noopener noreferrer"', async () => {
    expect(await renderBrief('[a](https://a.example "T") [m](mailto:x@a.example)')).toBe(
      '<p><a href="https://a.example" title="T" rel="nofollow noopener noreferrer">a</a> ' +
        '<a href="mailto:x@a.example" rel="nofollow noopener noreferrer">m</a></p>',
    );
    // A rel given by the author is replaced, not merged.
    expect(await renderBrief('<a href="https://a.example" rel="opener" target="_blank">a</a>')).toBe(
      '<p><a href="https://a.example" rel="nofollow noopener noreferrer">a</a></p>',
    );
  });

  it('keeps tables, and drops images (a remote image reports its readers to its host)', async () => {
    expect(await renderBrief('![logo](https://cdn.example/l.png)')).toBe('<p></p>');
    expect(await renderBrief('Before <img src="https://cdn.example/l.png" alt="logo"> after')).toBe(
      '<p>Before  after</p>',
    );
    expect(await renderBrief('| a |\n|---|\n| 1 |')).toContain('<td>1</td>');
  });

  it.each([
    ['a relative path', '/api/logout'],
    ['a path without a slash', 'page.html'],
    ['a fragment', '#top'],
    ['a scheme-relative URL', '//evil.example/a'],
    ["https: with no slashes (a path on the page's host for a browser)", 'https:javascript:alert(1)'],
    ['http: with one slash', 'http:/evil.example'],
    ['ftp', 'ftp://files.example/a'],
  ])('keeps the text of a link to %s, without its href', async (_, href) => {
    for (const source of [`[x](${href})`, `<a href="${href}">x</a>`])
      expect(await renderBrief(source), source).toBe('<p><a rel="nofollow noopener noreferrer">x</a></p>');
  });

  it.each([
    ['a backslash for a slash', 'https:\\\\evil.example'],
    ['a tab in the scheme', 'ht&#9;tps://evil.example'],
    ['a newline after the slashes', 'https://&#10;evil.example'],
    ['a leading space', ' https://a.example'],
  ])('drops the href of a raw link with %s', async (_, href) => {
    expect(await renderBrief(`<a href="${href}">x</a>`)).toBe(
      '<p><a rel="nofollow noopener noreferrer">x</a></p>',
    );
  });

  it('keeps absolute http(s) and mailto links, whatever the case of the scheme', async () => {
    expect(
      await renderBrief('[a](HTTPS://A.example/x?q=1#f) [b](http://b.example) [m](MAILTO:x@a.example)'),
    ).toBe(
      '<p><a href="HTTPS://A.example/x?q=1#f" rel="nofollow noopener noreferrer">a</a> ' +
        '<a href="http://b.example" rel="nofollow noopener noreferrer">b</a> ' +
        '<a href="MAILTO:x@a.example" rel="nofollow noopener noreferrer">m</a></p>',
    );
  });

  it.each(PAYLOADS)('lets nothing executable through: %s', async (payload) => {
    for (const input of [payload, `Intro\n\n${payload}\n\nOutro`, `- ${payload}`]) {
      const html = await renderBrief(input);
      for (const { name, attribs } of elementsOf(html)) {
        expect(DANGEROUS_TAGS.has(name), `<${name}> in ${html}`).toBe(false);
        for (const [attribute, value] of Object.entries(attribs)) {
          expect(attribute, html).not.toMatch(/^on/i);
          expect(attribute, html).not.toBe('style');
          if (attribute === 'href' || attribute === 'src') {
            // Only absolute http(s)/mailto URLs.
            expect(value, html).toMatch(/^(https?:\/\/[^/\\]|mailto:)/i);
          }
        }
      }
      expect(html.toLowerCase()).not.toMatch(/javascript:|vbscript:|data:|<script|onerror=|onload=/);
    }
  });

  it('drops scripts with their content and unsafe links but keeps the link text', async () => {
    expect(await renderBrief('Hello <script>alert(1)</script>world')).toBe('<p>Hello world</p>');
    expect(await renderBrief('[click](javascript:alert(1))')).toBe(
      '<p><a rel="nofollow noopener noreferrer">click</a></p>',
    );
    expect(await renderBrief('<img src=x onerror=alert(1)>')).toBe('');
  });
});

describe('renderBrief on hostile Markdown', () => {
  it('refuses what nests deeper than the renderer can go (its stack) or takes too long', async () => {
    for (const source of [`${'>'.repeat(19_998)} a`, `${'- '.repeat(9_999)}a`]) {
      await expect(renderBrief(source)).rejects.toMatchObject({
        statusCode: 422,
        body: { errors: { brief: [expect.stringMatching(/nests too deeply|takes longer/)] } },
      });
    }
  });

  it('refuses what takes longer than the budget, and renders the next brief', async () => {
    // About 1.3 s of rendering on an idle machine: over a 300 ms budget on any machine.
    await expect(renderBrief('*~_'.repeat(6_666), 300)).rejects.toMatchObject({
      statusCode: 422,
      body: { errors: { brief: [expect.stringContaining('longer than 300 ms')] } },
    });
    expect(await renderBrief('after *that*')).toBe('<p>after <em>that</em></p>');
  });

  it('refuses a brief that renders to more than 200 000 characters of HTML (a long link used thousands of times)', async () => {
    const source = `[a]: https://x.example/${'p'.repeat(1_000)}\n\n${'[a] '.repeat(4_000)}`;
    expect(source.length).toBeLessThan(20_000);
    // A budget no machine reaches: the refusal is for the size.
    await expect(renderBrief(source, 60_000)).rejects.toMatchObject({
      statusCode: 422,
      body: { errors: { brief: [expect.stringContaining('more than 200000 characters of HTML')] } },
    });
  });

  it('renders concurrent briefs each to its own HTML', async () => {
    const sources = Array.from({ length: 20 }, (_, i) => `brief **${i}**`);
    const html = await Promise.all(sources.map((source) => renderBrief(source)));
    expect(html).toEqual(sources.map((_, i) => `<p>brief <strong>${i}</strong></p>`));
  });
});

describe('the rendering workers', () => {
  it('do not keep a process alive: one that rendered a brief exits by itself (node:test and jest hung)', async () => {
    const brief = fileURLToPath(new URL('./brief.ts', import.meta.url));
    // A file, not `-e`: workers inherit the parent's execArgv, and each would run the script again.
    const script = join(mkdtempSync(join(tmpdir(), 'brief-exit-')), 'render.mjs');
    writeFileSync(
      script,
      `const { renderBrief } = await import(${JSON.stringify(brief)});\nprocess.stdout.write(await renderBrief('# Hello'));\n`,
    );
    // From the sources, as the test runs (a fresh clone has no build of @app/schemas to resolve to).
    const child = spawn(process.execPath, ['--conditions=@app/source', '--import', 'tsx', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    onTestFinished(() => {
      child.kill('SIGKILL');
      rmSync(dirname(script), { recursive: true, force: true });
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    // A worker that holds the process makes this wait forever: the test's timeout fails it.
    const [code] = (await once(child, 'close')) as [number | null];
    expect(stdout).toBe('<h1>Hello</h1>');
    expect(code).toBe(0);
  }, 30_000);
});
