/** `GET /auth/sign-in-options`: how people may sign in besides an API token (the GUI's sign-in page offers it). */
export interface SignInOptions {
  /** Single sign-on through the identity provider: its name, and where the browser goes to start; null when none is set up. */
  singleSignOn: { name: string; url: string } | null
}
