// `theme browser serve` (theme/capture/remote.py): run with `node -e` by the Node.js that
// ships inside Playwright for Python, against its own playwright-core: launchServer is in
// Node's API only. The launch options come as JSON in argv[1]; one JSON line out, then it waits.
const pw = require(process.env.THEME_PLAYWRIGHT_PACKAGE);
(async () => {
  const server = await pw.chromium.launchServer(JSON.parse(process.argv[1]));
  process.stdout.write(JSON.stringify({endpoint: server.wsEndpoint()}) + "\n");
  const stop = async () => { await server.close(); process.exit(0); };
  process.on("SIGTERM", stop); process.on("SIGINT", stop);
  process.stdin.on("end", stop); process.stdin.resume();  // the parent went away
})().catch(e => { process.stdout.write(JSON.stringify({error: String(e && e.message || e)}) + "\n"); process.exit(2); });
