import { saysAddressInUse } from './ports';

/** The dev server could not be started; the message says why and what to do. */
export class DevServerError extends Error {
  override readonly name = 'DevServerError';

  constructor(
    message: string,
    /** The `host:port` the server was meant to listen on. */
    readonly address: string,
    /** The server's last output, when it exited during start-up. */
    readonly exitOutput?: string,
  ) {
    super(message);
  }
}

/** Recognises {@link DevServerError} by name, which survives Jest realms where `instanceof` does not. */
export function isDevServerError(error: unknown): error is DevServerError {
  return error instanceof Error && error.name === 'DevServerError';
}

/**
 * Whether the server crashed while it started: it exited during start-up and its output shows a Go runtime panic
 * (`panic: …`). The Temporal dev server does so now and then on a healthy database and free ports (a nil pointer
 * while it builds its services); the same start succeeds when run again.
 */
export function crashedDuringStartup(error: unknown): boolean {
  return isDevServerError(error) && error.exitOutput !== undefined && /^panic: /m.test(error.exitOutput);
}

/** Whether the server exited during start-up because one of its ports was already taken. */
export function tookAPortInUse(error: unknown): boolean {
  return isDevServerError(error) && error.exitOutput !== undefined && saysAddressInUse(error.exitOutput);
}
