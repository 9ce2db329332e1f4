import { REQUEST_ID_HEADER } from '@app/schemas';

/** A call's parsed result with the HTTP response it came from. */
export interface APIResponse<T> {
  readonly data: T;
  /**
   * The response, with its body still readable (a copy: the SDK has read and validated it), but on
   * a cache hit it is the `304` the server answered, with no body: read `data` then, or pass
   * `cache: false` for a fresh `200` and its body. The final show response for a transition.
   */
  readonly response: Response;
  /** The server's `X-Request-Id`, to quote when reporting a problem; `null` when it sent none. */
  readonly requestId: string | null;
}

/**
 * What every call except `list()` returns: await it for the parsed result, or ask for the response
 * too. The request is sent at once, whichever way it is read.
 *
 * @example
 * ```ts
 * const org = await client.organizations.retrieve(id);
 * const { data, response, requestId } = await client.organizations.retrieve(id).withResponse();
 * ```
 */
export class APIPromise<T> implements Promise<T> {
  readonly [Symbol.toStringTag] = 'APIPromise';
  readonly #answer: Promise<{ data: T; response: Response }>;
  #data: Promise<T> | undefined;

  constructor(answer: Promise<{ data: T; response: Response }>) {
    this.#answer = answer;
  }

  /** The parsed result, the response and its request id. */
  withResponse(): Promise<APIResponse<T>> {
    return this.#answer.then(({ data, response }) => ({
      data,
      response,
      requestId: response.headers.get(REQUEST_ID_HEADER),
    }));
  }

  /**
   * The response only; errors still reject as they would when awaited. Its body is readable, except
   * on a cache hit (a show read again): that is the `304` the server answered, with no body. Use
   * `data` (`withResponse()`, or the await), or pass `cache: false` for a `200` with its body.
   */
  asResponse(): Promise<Response> {
    return this.#answer.then(({ response }) => response);
  }

  // Derived on first use, so that a caller of `withResponse()` alone leaves no unhandled rejection.
  #result(): Promise<T> {
    this.#data ??= this.#answer.then(dataOf<T>);
    return this.#data;
  }

  // biome-ignore lint/suspicious/noThenProperty: an API promise is awaitable by design
  then<A = T, B = never>(
    onfulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#result().then(onfulfilled, onrejected);
  }

  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.#result().catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#result().finally(onfinally);
  }
}

/** The parsed result of an answer (one function for every call, not a closure each). */
function dataOf<T>(answer: { data: T }): T {
  return answer.data;
}
