/**
 * Git connections on the wire: HCP Terraform's `oauth-clients` and `oauth-tokens`, of Homeport's
 * one service provider, `git` (a folder of repositories, or a base git URL).
 */

/** An `oauth-clients` resource's attributes. */
export interface OAuthClientAttributes {
  name: string
  'created-at': string
  'service-provider': 'git'
  'service-provider-display-name': string
  /** The folder of repositories, or the base git URL. */
  'http-url': string
  'api-url': string
  'callback-url': null
  'connect-path': null
  key: null
}

/** An `oauth-tokens` resource's attributes: the id a module's `vcs-repo` names its connection by. */
export interface OAuthTokenAttributes {
  uid: string
  'created-at': string
  'has-ssh-key': boolean
  'service-provider-user': string
}

/** Homeport's `vcs-repositories`: a repository in a folder connection, to pick from. */
export interface VcsRepositoryAttributes {
  identifier: string
}

/** The repository list's `meta`: `listable` is false for a remote base URL, whose repositories cannot be listed. */
export interface VcsRepositoriesMeta {
  listable: boolean
}
