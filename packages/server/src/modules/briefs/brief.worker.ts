/*
 * The brief renderer, run in a worker thread (see `brief.ts`): Markdown → HTML → sanitized HTML.
 * Markdown allows raw HTML, so the rendered HTML is cleaned with an allow-list: only formatting
 * tags, no scripts or event handlers, no style attributes, no images (a remote image tells its
 * host who reads the brief, and when), and links only to absolute http(s) and mailto URLs. A link
 * to anything else (a relative path such as `/api/logout`, `https:javascript:…`, which a browser
 * reads as a path on the page's own host) keeps its text and loses its href. Anything else is
 * dropped, never escaped into view.
 *
 * This file imports packages only (no relative imports), so Node runs it as it is from source
 * (type stripping) in tests and from `dist/brief.worker.js` in the build.
 */
import { parentPort } from 'node:worker_threads';
import { Marked } from 'marked';
import sanitizeHtml from 'sanitize-html';

const markdown = new Marked({ gfm: true, breaks: false, async: false });

/**
 * Whether `href` is an absolute `http(s)://host…` or `mailto:` URL as written: no relative path,
 * no scheme-relative `//host`, no `https:path` (relative to the page for a browser), and no
 * whitespace or control character a browser would strip or skip to read something else.
 */
function isAbsoluteLink(href: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (/[\s\u0000-\u001f\u007f]/.test(href) || !URL.canParse(href)) return false;
  const url = new URL(href);
  if (url.protocol === 'mailto:') return /^mailto:/i.test(href);
  return (url.protocol === 'http:' || url.protocol === 'https:') && /^https?:\/\/[^/\\]/i.test(href);
}

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'hr',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'strong',
    'em',
    'del',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'a',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'rel'],
    ol: ['start'],
    th: ['align'],
    td: ['align'],
  },
  allowedSchemes: [],
  allowedSchemesByTag: { a: ['http', 'https', 'mailto'] },
  allowProtocolRelative: false,
  // Scripts and styles go with their content; other unknown tags leave their text.
  nonTextTags: [
    'script',
    'style',
    'textarea',
    'option',
    'noscript',
    'iframe',
    'object',
    'embed',
    'svg',
    'math',
  ],
  disallowedTagsMode: 'discard',
  transformTags: {
    // Links the organization wrote must not pass on reputation, the opener or the referrer; an
    // href that is not an absolute http(s) or mailto URL goes.
    a: (tagName, attribs) => ({
      tagName,
      attribs: {
        ...Object.fromEntries(
          Object.entries(attribs).filter(([name, value]) => name !== 'href' || isAbsoluteLink(value)),
        ),
        rel: 'nofollow noopener noreferrer',
      },
    }),
  },
};

/** Renders a Markdown brief to sanitized HTML. */
export function renderBriefHtml(source: string): string {
  return sanitizeHtml(markdown.parse(source) as string, SANITIZE).trim();
}

export interface BriefJob {
  id: number;
  source: string;
}

export type BriefResult = { id: number; html: string } | { id: number; error: string };

/** Sent once the renderer is loaded and warm: budgets count from then, not from the worker's start. */
export const READY = 'ready';

/*
 * A new worker's first renderings compile the parser's and the sanitizer's code and expressions:
 * 30–60 ms for a one-line brief on an idle machine, against 1–3 ms once warm, and several times
 * that on a busy one, where it could cost a legitimate brief its budget right after a hostile one
 * had the worker replaced. A few renderings of every kind of block and inline here pay for that
 * before READY.
 */
const WARM_UP = `# Title

Text with *emphasis*, **strong**, ~~struck~~, \`code\`, a [link](https://example.com "t") and ![img](https://example.com/a.png).

> A quote
> - with a list

1. one
2. two

| a | b |
|:--|--:|
| 1 | 2 |

\`\`\`
code
\`\`\`

<b>raw</b> <script>x</script> <a href="javascript:x">y</a>
`;
if (parentPort) for (let i = 0; i < 3; i++) renderBriefHtml(WARM_UP);
parentPort?.postMessage(READY);

parentPort?.on('message', ({ id, source }: BriefJob) => {
  let result: BriefResult;
  try {
    result = { id, html: renderBriefHtml(source) };
  } catch (error) {
    // A stack overflow (thousands of nested block quotes or list items) and any other failure.
    result = { id, error: error instanceof RangeError ? 'nests too deeply' : String(error) };
  }
  parentPort?.postMessage(result);
});
