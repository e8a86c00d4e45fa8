/* eslint-disable @n8n/community-nodes/no-restricted-globals -- development tooling: runs in Node, not in n8n */
// `tsx scripts/n8n-install.ts [version...]`: installs real n8n into the cache ahead of time
// (test/helpers/n8n/install.ts; default: N8N_VERSION; `--e2e`: every version the end-to-end tests
// run). Run it under scripts/with-env.sh (Node 22+ and npm on PATH).
import { E2E_VERSIONS, ensureN8n, installLog, N8N_VERSION } from '../test/helpers/n8n/install';

const args = process.argv.slice(2);
const versions = args.includes('--e2e') ? E2E_VERSIONS : args.length ? args : [N8N_VERSION];
(async () => {
	for (const version of versions) {
		const runtime = await ensureN8n(version);
		installLog(`ready: n8n ${version} (${runtime.bin}, Node ${runtime.nodeMajor})`);
	}
})().catch((error) => {
	installLog(error.message);
	process.exit(1);
});
