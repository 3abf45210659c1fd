// Stand-ins for the application's own session, so the chat samples type-check.

/** The signed-in user's gateway token. */
export async function userToken(): Promise<string> {
  return process.env.TOLLGATE_TOKEN ?? '';
}

/** The signed-in user. */
export async function currentUser(): Promise<{ id: string }> {
  return { id: process.env.TOLLGATE_USER ?? 'ana' };
}
