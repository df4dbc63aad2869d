/**
 * `GET /api/homeport/v1/server-info`: what the GUI and the CLI put in a Terraform CLI configuration.
 * One type, read by the server that answers and the GUI that asks.
 */
export interface ServerInfo {
  edition: string
  /** The host Terraform sources name (`<hostname>/<org>/<module>/<provider>`). */
  registryHostname: string
  /** Where Terraform reaches this server. */
  serverUrl: string
}
