import { Marked } from 'marked';
import sanitizeHtml from 'sanitize-html';

/*
 * Briefs (collabs and campaigns) are stored as the Markdown the organization wrote and shown as
 * HTML. Markdown allows raw HTML, so the rendered HTML is cleaned with an allow-list: only
 * formatting tags, no scripts or event handlers, no style attributes, and links and images only
 * to http(s) (links also to mailto). Anything else is dropped, never escaped into view.
 */

const markdown = new Marked({ gfm: true, breaks: false, async: false });

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
    'img',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'rel'],
    img: ['src', 'alt', 'title'],
    ol: ['start'],
    th: ['align'],
    td: ['align'],
  },
  allowedSchemes: ['http', 'https'],
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
    // Links the organization wrote must not pass on reputation, the opener or the referrer.
    a: (tagName, attribs) => ({
      tagName,
      attribs: { ...attribs, rel: 'nofollow noopener noreferrer' },
    }),
  },
};

/*
 * Rendering a long brief costs tens of milliseconds of CPU, and every show needs it: the latest
 * renderings are kept (keyed by the Markdown itself, so an edited brief is simply a new key).
 */
const RENDERED_CAPACITY = 256;
const rendered = new Map<string, string>();

/** Renders a Markdown brief to sanitized HTML. */
export function renderBrief(source: string): string {
  const cached = rendered.get(source);
  if (cached !== undefined) {
    rendered.delete(source);
    rendered.set(source, cached);
    return cached;
  }
  const html = sanitizeHtml(markdown.parse(source) as string, SANITIZE).trim();
  rendered.set(source, html);
  if (rendered.size > RENDERED_CAPACITY) rendered.delete(rendered.keys().next().value as string);
  return html;
}
