/**
 * A `Response` the SDK makes in place of one it read: a copy whose body can be read again, or the
 * empty `404` that means "none". `url` is no option of the constructor, so it is set on the made
 * response as the platform sets it on its own: it says which URL it answers (`''` when not known).
 */
export function madeResponse(body: BodyInit | null, init: ResponseInit, url: string): Response {
  const response = new Response(body, init);
  if (url !== '') Object.defineProperty(response, 'url', { value: url });
  return response;
}
