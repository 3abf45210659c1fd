/** The dev server could not be started; the message says why and what to do. */
export class DevServerError extends Error {
  override readonly name = 'DevServerError';

  constructor(
    message: string,
    /** The `host:port` the server was meant to listen on. */
    readonly address: string,
  ) {
    super(message);
  }
}

/** Recognises {@link DevServerError} by name, which survives Jest realms where `instanceof` does not. */
export function isDevServerError(error: unknown): error is DevServerError {
  return error instanceof Error && error.name === 'DevServerError';
}
