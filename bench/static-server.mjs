// A plain static file server: the one file named on the command line, streamed from disk, for
// figure 8's comparison. Prints where it listens.
import { createReadStream, statSync } from 'node:fs'
import { createServer } from 'node:http'

const file = process.argv[2]
const size = statSync(file).size
const server = createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/zip', 'Content-Length': size })
  createReadStream(file).pipe(res)
})
server.listen(0, '127.0.0.1', () => console.log(`Static server listening on http://127.0.0.1:${server.address().port}`))
