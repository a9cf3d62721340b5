/**
 * The RPC documentation of both services (src/cli/rpc-docs.ts): the kept files cannot drift from the
 * method tables, the running servers serve the same documents (rpc.discover, GET /openrpc.json; a
 * restricted server leaves out its restricted methods), every method, path and alias of the two spec
 * files is in them, and they validate against the OpenRPC meta-schema.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { request } from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { nodeDocTable, openRpcDocuments, parseSpec, renderRpcDocs, specTextModule, walletDocTable } from "../src/cli/rpc-docs.js";
import { isJsonObject, type JsonValue, parseJson } from "../src/rpc/json.js";
import { RpcServer } from "../src/rpc/server.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const specDir = process.env.TSMONERO_SPEC_DIR ?? join(root, "..", "shared", "spec");
const noSpec = existsSync(join(specDir, "node-rpc.md")) && existsSync(join(specDir, "wallet-rpc.md")) ? undefined : `no spec files in ${specDir} (set TSMONERO_SPEC_DIR)`;

function post(port: number, path: string, method: "GET" | "POST", body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method, headers: body ? { "content-type": "application/json" } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

interface Doc {
  methods: { name: string; "x-aliases": string[]; "x-restricted": boolean; "x-mirrors": string; summary?: string; description?: string; errors: { code: number }[] }[];
  "x-paths": { path: string; aliases: string[]; restricted: boolean }[];
}
const asDoc = (v: JsonValue): Doc => v as unknown as Doc;

describe("RPC docs: kept files", () => {
  it("docs/openrpc/*.json and docs/rpc-methods.md are what the method tables generate (npm run docs:rpc)", () => {
    for (const [rel, text] of Object.entries(renderRpcDocs())) {
      const file = join(root, rel);
      assert.ok(existsSync(file), `${rel} is missing: run npm run docs:rpc`);
      assert.equal(readFileSync(file, "utf8"), text, `${rel} is out of date: run npm run docs:rpc`);
    }
  });

  it("the spec text modules are what the spec files give", { skip: noSpec }, () => {
    for (const [spec, mod, name] of [
      ["node-rpc.md", "src/node/rpc/spec-text.ts", "NODE_SPEC_TEXT"],
      ["wallet-rpc.md", "src/wallet/rpc/spec-text.ts", "WALLET_SPEC_TEXT"],
    ] as const) {
      const want = specTextModule(readFileSync(join(specDir, spec), "utf8"), name, spec);
      assert.equal(readFileSync(join(root, mod), "utf8"), want, `${mod} is out of date: run npm run docs:rpc`);
    }
  });

  it("every method has a summary, x-mirrors and its errors", () => {
    const docs = openRpcDocuments();
    for (const [svc, d] of [["node", asDoc(docs.node)], ["wallet", asDoc(docs.wallet)]] as const) {
      for (const m of d.methods) {
        assert.ok(m.summary, `${svc} ${m.name}: no summary (not in the spec? give the definition one)`);
        // an extension of ours mirrors nothing and says so, in x-mirrors and in its summary
        if (m["x-mirrors"].startsWith("none")) assert.match(m.summary, /^tsmonerod only: /, `${svc} ${m.name}: an extension says so first`);
        else assert.match(m["x-mirrors"], /::on_[a-z_]+$/, `${svc} ${m.name}`);
        assert.ok(m.errors.some((e) => e.code === -32602), `${svc} ${m.name}: -32602 missing`);
      }
    }
    const wallet = asDoc(docs.wallet);
    const transfer = wallet.methods.find((m) => m.name === "transfer");
    assert.deepEqual(transfer?.errors.map((e) => e.code).slice(0, 4), [-32602, -1, -13, -7], "the wrapper's −13 and −7 for a restricted wallet method");
    assert.equal(wallet.methods.find((m) => m.name === "get_balance")?.["x-mirrors"], "tools::wallet_rpc_server::on_getbalance");
    assert.equal(asDoc(docs.node).methods.find((m) => m.name === "get_info")?.["x-mirrors"], "cryptonote::core_rpc_server::on_get_info_json");
  });
});

describe("RPC docs: served", () => {
  const servers: RpcServer[] = [];
  const ports = { node: 19641, nodeRestricted: 19642, wallet: 19643, walletRestricted: 19644 };
  before(async () => {
    const mk = async (methods: ReturnType<typeof nodeDocTable>, restricted: boolean, port: number) => {
      const s = new RpcServer({ methods, restricted, log: () => undefined });
      await s.listen(port);
      servers.push(s);
    };
    const node = nodeDocTable();
    const wallet = walletDocTable();
    await mk(node, false, ports.node);
    await mk(node, true, ports.nodeRestricted);
    await mk(wallet, false, ports.wallet);
    await mk(wallet, true, ports.walletRestricted);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  const discover = async (port: number): Promise<JsonValue> => {
    const r = await post(port, "/json_rpc", "POST", JSON.stringify({ jsonrpc: "2.0", id: 7, method: "rpc.discover" }));
    assert.equal(r.status, 200);
    const v = parseJson(r.text);
    assert.ok(isJsonObject(v) && v.id === 7, r.text.slice(0, 200));
    return v.result as JsonValue;
  };

  it("rpc.discover and GET /openrpc.json answer the kept document", async () => {
    for (const [port, file] of [
      [ports.node, "docs/openrpc/node.json"],
      [ports.wallet, "docs/openrpc/wallet.json"],
    ] as const) {
      const kept = parseJson(readFileSync(join(root, file), "utf8"));
      assert.deepEqual(await discover(port), kept, `${file} via rpc.discover`);
      const g = await post(port, "/openrpc.json", "GET");
      assert.equal(g.status, 200);
      assert.deepEqual(parseJson(g.text), kept, `${file} via GET /openrpc.json`);
    }
  });

  it("a restricted server leaves out its restricted methods and paths", async () => {
    for (const [port, full] of [
      [ports.nodeRestricted, asDoc(openRpcDocuments().node)],
      [ports.walletRestricted, asDoc(openRpcDocuments().wallet)],
    ] as const) {
      const d = asDoc(await discover(port));
      const want = full.methods.filter((m) => !m["x-restricted"]).map((m) => m.name);
      assert.deepEqual(d.methods.map((m) => m.name), want);
      assert.ok(want.length < full.methods.length, "some methods are restricted");
      assert.ok(!d["x-paths"].some((p) => p.restricted));
      const g = asDoc(parseJson((await post(port, "/openrpc.json", "GET")).text));
      assert.deepEqual(g.methods.map((m) => m.name), want);
    }
    const names = asDoc(await discover(ports.nodeRestricted)).methods.map((m) => m.name);
    assert.ok(!names.includes("generateblocks") && names.includes("get_info"));
  });
});

describe("RPC docs: spec coverage", { skip: noSpec }, () => {
  for (const [svc, spec] of [
    ["node", "node-rpc.md"],
    ["wallet", "wallet-rpc.md"],
  ] as const) {
    it(`every method, path and alias of ${spec} is in the ${svc} document`, () => {
      const entries = parseSpec(readFileSync(join(specDir, spec), "utf8"));
      assert.ok(entries.length > (svc === "node" ? 60 : 80), `parsed ${entries.length} entries`);
      const d = asDoc(openRpcDocuments()[svc]);
      const known = new Set<string>();
      for (const m of d.methods) for (const n of [m.name, ...m["x-aliases"]]) known.add(n);
      for (const p of d["x-paths"]) for (const n of [p.path, ...p.aliases]) known.add(n);
      // monerod 0.18 dropped these two (404 and "Method not found" on both); the spec keeps them "for reference"
      const gone = new Set(["/start_save_graph", "/stop_save_graph"]);
      const missing = entries.flatMap((e) => [e.name, ...e.aliases]).filter((n) => !known.has(n) && !gone.has(n));
      assert.deepEqual(missing, [], `${spec}: not in the document`);
    });
  }
});

/** A dev dependency from node_modules, or from TSMONERO_TEST_DEPS (a node_modules directory) until it is installed. */
async function devDep(name: string): Promise<{ mod: Record<string, unknown>; version: string } | undefined> {
  const bases = [import.meta.url, ...(process.env.TSMONERO_TEST_DEPS ? [pathToFileURL(join(process.env.TSMONERO_TEST_DEPS, "x.js")).href] : [])];
  for (const base of bases) {
    try {
      const req = createRequire(base);
      const pkg = JSON.parse(readFileSync(req.resolve(`${name}/package.json`), "utf8")) as { version: string };
      if (name === "ajv" && Number(pkg.version.split(".")[0]) < 8) continue; // eslint's ajv 6, not ours
      return { mod: (await import(pathToFileURL(req.resolve(name)).href)) as Record<string, unknown>, version: pkg.version };
    } catch {
      // not here
    }
  }
  return undefined;
}

describe("RPC docs: OpenRPC meta-schema", () => {
  it("both documents validate against @open-rpc/meta-schema (JSON Schema draft-07, ajv 8)", async (t) => {
    const ajvDep = await devDep("ajv");
    const metaDep = await devDep("@open-rpc/meta-schema");
    const jsonMetaDep = await devDep("@json-schema-tools/meta-schema");
    if (!ajvDep || !metaDep || !jsonMetaDep) {
      t.skip("needs devDependencies ajv@^8, @open-rpc/meta-schema and @json-schema-tools/meta-schema (npm install; or TSMONERO_TEST_DEPS=<dir>/node_modules)");
      return;
    }
    type Validate = ((doc: unknown) => boolean) & { errors?: unknown[] | null };
    type AjvInstance = { addMetaSchema(s: unknown, key?: string): unknown; compile(s: unknown): Validate };
    // CommonJS modules: import() gives module.exports as `default`, whose own `default` is the export
    const unwrap = (m: Record<string, unknown>): unknown => {
      const d = m.default as Record<string, unknown> | undefined;
      return d && typeof d === "object" && "default" in d ? d.default : (d ?? m);
    };
    const Ajv = unwrap(ajvDep.mod) as new (o: object) => AjvInstance;
    // formats (uri, regex) are not checked: ajv 8 leaves them to ajv-formats, and our documents carry none
    const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, validateFormats: false });
    // as @open-rpc/schema-utils-js's validateOpenRPCDocument: the JSON Schema meta-schema the OpenRPC one refers to
    ajv.addMetaSchema(unwrap(jsonMetaDep.mod), "https://meta.json-schema.tools");
    const validate = ajv.compile(unwrap(metaDep.mod));
    assert.equal(validate({}), false, "the compiled meta-schema refuses an empty document");
    for (const file of ["docs/openrpc/node.json", "docs/openrpc/wallet.json"]) {
      // as any client reads it: JSON.parse (u64 bounds become doubles, still integers)
      const doc = JSON.parse(readFileSync(join(root, file), "utf8")) as unknown;
      const ok = validate(doc);
      assert.ok(ok, `${file}: ${JSON.stringify(validate.errors?.slice(0, 5), null, 1)}`);
    }
    // the validator is not a rubber stamp: a method without params fails
    const broken = JSON.parse(readFileSync(join(root, "docs/openrpc/node.json"), "utf8")) as { methods: Record<string, unknown>[] };
    delete broken.methods[0].params;
    assert.equal(validate(broken), false);
  });
});
