import manifest from '../../package.json' with { type: 'json' }

/** Homeport's version, as package.json says: what the MCP server and the CLI report. */
export const HOMEPORT_VERSION: string = manifest.version
