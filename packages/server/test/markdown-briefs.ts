import fc from 'fast-check';

/** Markdown-shaped briefs: nesting, delimiter runs, long lines, tables, raw HTML, mixed. */
export const markdownBrief = (() => {
  const delimiter = fc.constantFrom(
    '*',
    '_',
    '~',
    '`',
    '**',
    '__',
    '~~',
    '[',
    ']',
    '(',
    ')',
    '<',
    '>',
    '!',
    '|',
    '\\',
  );
  const run = fc
    .tuple(delimiter, fc.integer({ min: 1, max: 4_000 }))
    .map(([d, n]) => d.repeat(Math.ceil(n / d.length)));
  const nesting = fc
    .tuple(fc.constantFrom('> ', '- ', '1. ', '  ', '    ', '* '), fc.integer({ min: 1, max: 3_000 }))
    .map(([prefix, depth]) => `${prefix.repeat(depth)}text`);
  const line = fc.string({ maxLength: 400 });
  const table = fc
    .tuple(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 60 }))
    .map(([cols, rows]) =>
      [
        `|${' h |'.repeat(cols)}`,
        `|${'---|'.repeat(cols)}`,
        ...Array(rows).fill(`|${' c |'.repeat(cols)}`),
      ].join('\n'),
    );
  const html = fc.constantFrom(
    '<div>',
    '</div>',
    '<script>x</script>',
    '<!--',
    '-->',
    '<a href="javascript:x">',
    '<img src=x onerror=y>',
    '<table>',
  );
  const piece = fc.oneof(run, nesting, line, table, html, fc.constantFrom('\n', '\n\n', ' ', '# ', '```\n'));
  return fc.array(piece, { maxLength: 30 }).map((pieces) => pieces.join('').slice(0, 20_000));
})();
