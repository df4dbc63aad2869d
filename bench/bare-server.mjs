// The ceiling: a bare node:http server answering, from memory, exactly the bytes Homeport
// answered for the same paths (status, headers, body).
import { createServer } from 'node:http'
import { readFileSync } from 'node:fs'

const responses = new Map(JSON.parse(readFileSync(process.argv[2], 'utf8')).map((entry) => [entry.path, entry]))
const server = createServer((req, res) => {
  const entry = responses.get(req.url)
  if (!entry) {
    res.writeHead(404)
    res.end()
    return
  }
  res.writeHead(entry.status, entry.headers)
  res.end(entry.body)
})
server.listen(0, '127.0.0.1', () => console.log(`Bare server listening on http://127.0.0.1:${server.address().port}`))
process.on('SIGTERM', () => server.close(() => process.exit(0)))
