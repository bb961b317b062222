// src/schema.d.ts from the API's OpenAPI schema, with openapi-typescript: `npm run generate --
// [URL or file] [output]` (default: a local `make run`'s schema). Any warning fails the run: a
// warning means part of the schema could not be typed, and the client would silently miss it.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const source = process.argv[2] ?? "http://127.0.0.1:8000/api/schema/?format=json";
const output = process.argv[3] ?? "src/schema.d.ts";
const cli = fileURLToPath(new URL("node_modules/openapi-typescript/bin/cli.js", import.meta.url));
// --default-non-nullable false: a field with a default stays optional (the request bodies'
// `turn_timeout`, `private`, ...: the server fills it in). Answers list every field they have
// in `required`, so they lose nothing.
const run = spawnSync(process.execPath, [cli, source, "--output", output, "--default-non-nullable", "false"], { cwd: here, encoding: "utf8" });
process.stdout.write(run.stdout ?? "");
process.stderr.write(run.stderr ?? "");
if (run.status !== 0) {
  process.exit(run.status ?? 1);
}
// openapi-typescript writes its warnings (` ⚠  ...`) to stderr and still exits 0.
if ((run.stderr ?? "").trim() !== "") {
  console.error("generate: openapi-typescript warned (above): failing, as a warning is a part of the schema left untyped");
  process.exit(1);
}
