// Counts a run of http-tests/cache-tests' command line: node summary.mjs <checkout> <results.json>
// Prints how many of the tests it ran passed, how many of the required ones did, and the
// required ones that did not (with what the suite recorded for them).
import fs from 'fs'
import path from 'path'
import { pathToFileURL } from 'url'

const [checkout, resultsPath] = process.argv.slice(2)
const suites = (await import(pathToFileURL(path.join(checkout, 'tests/index.mjs')))).default
const results = JSON.parse(fs.readFileSync(resultsPath, 'utf8'))

const kinds = new Map()
for (const suite of suites) for (const test of suite.tests) kinds.set(test.id, test.kind || 'required')

const ids = Object.keys(results)
const passed = ids.filter(id => results[id] === true)
const required = ids.filter(id => kinds.get(id) === 'required')
const missed = required.filter(id => results[id] !== true)
console.log(`${passed.length} of ${ids.length} tests passed; ${required.length - missed.length} of ${required.length} required ones`)
for (const id of missed) console.log(`  required, not passed: ${id}: ${JSON.stringify(results[id])}`)
