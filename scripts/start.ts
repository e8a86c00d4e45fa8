/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/require-node-api-error, no-console --
   development tooling, not a node: runs in Node, not in n8n; prints its progress and where to sign in */
// `npm start`: the whole thing running on this machine, with no account at the real service.
//   1. builds this package;
//   2. starts the sandbox of the service with 500 demo clients;
//   3. installs a real n8n once (cached outside the repo, reused afterwards);
//   4. starts n8n with this package loaded, its data in .n8n-demo/;
//   5. creates the owner login, credentials for the sandbox (the OAuth2 one connected) and the
//      example workflows, among them an MCP server for AI assistants, guarded by a bearer token
//      kept in .n8n-demo/.
// Ctrl-C stops n8n and the sandbox.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { startSandbox } from 'compliance-records-sandbox';
import {
	API_KEY_CREDENTIAL,
	DEMO_OWNER,
	OAUTH2_CREDENTIAL,
	provisionDemo,
} from '../test/helpers/n8n/demo';
import {
	ensureN8n,
	formatDuration,
	isN8nInstalled,
	N8N_VERSION,
} from '../test/helpers/n8n/install';
import { assertPortFree, N8n } from '../test/helpers/n8n/instance';

const PORTS = { n8n: 5678, taskBroker: 5679, sandboxApi: 4010, sandboxAuth: 4011 };
const DEMO_CLIENTS = 500;

const projectRoot = resolve(__dirname, '..');
const demoFolder = join(projectRoot, '.n8n-demo');
const filesDir = join(demoFolder, 'files');
const n8nLog = join(demoFolder, 'n8n.log');
const mcpTokenFile = join(demoFolder, 'mcp-token');

const step = (text: string) => console.log(`\n▸ ${text}`);

async function main(): Promise<void> {
	const startedAt = Date.now();
	await assertPortFree(PORTS.n8n, 'n8n');
	await assertPortFree(PORTS.taskBroker, "n8n's task broker");
	await assertPortFree(PORTS.sandboxApi, 'sandbox API');
	await assertPortFree(PORTS.sandboxAuth, 'sandbox authorization server');
	mkdirSync(demoFolder, { recursive: true });

	step('Building the package (npm run build)');
	await run('npm', ['run', '--silent', 'build']);

	step(`Starting the sandbox of the Compliance Records service with ${DEMO_CLIENTS} demo clients`);
	const sandbox = await startSandbox({
		port: PORTS.sandboxApi,
		authPort: PORTS.sandboxAuth,
		clients: DEMO_CLIENTS,
		controls: true,
	});
	let n8n: N8n | undefined;
	const stopAll = async () => {
		await n8n?.stop();
		await sandbox.close();
	};
	let stopping = false;
	onStopSignal(async () => {
		stopping = true;
		console.log('\nStopping n8n and the sandbox...');
		await stopAll();
		process.exit(0);
	});

	try {
		step(
			isN8nInstalled()
				? `n8n ${N8N_VERSION} is installed (cached)`
				: `Installing n8n ${N8N_VERSION} (first run only: about 5 minutes)`,
		);
		await ensureN8n();

		step(`Starting n8n (its output goes to ${n8nLog})`);
		n8n = N8n.launch({
			userFolder: demoFolder,
			linkedPackage: projectRoot,
			port: PORTS.n8n,
			brokerPort: PORTS.taskBroker,
			filesDir,
			logFile: n8nLog,
		});
		await n8n.ready();

		step('Creating the owner login, credentials for the sandbox and the example workflows');
		const mcpToken = demoMcpToken();
		const demo = await provisionDemo(n8n, sandbox, { filesDir, mcpToken });
		printWelcome(n8n.url, sandbox, { urls: demo.mcpUrls, token: mcpToken }, Date.now() - startedAt);
	} catch (error) {
		await stopAll();
		throw error;
	}

	const exitCode = await n8n.onExit();
	if (stopping) return; // stopped by Ctrl-C: the signal handler finishes
	console.error(
		`\nn8n stopped by itself (exit code ${exitCode}). The end of its output:\n${tail(n8nLog, 30)}`,
	);
	await sandbox.close();
	process.exit(1);
}

/**
 * The bearer token MCP clients send to the MCP example: made at random on the first start and
 * kept in .n8n-demo/, so a connected assistant keeps working after a restart.
 */
function demoMcpToken(): string {
	if (existsSync(mcpTokenFile)) return readFileSync(mcpTokenFile, 'utf8').trim();
	const token = randomBytes(24).toString('base64url');
	writeFileSync(mcpTokenFile, `${token}\n`, { mode: 0o600 });
	return token;
}

function printWelcome(
	editorUrl: string,
	sandbox: { baseUrl: string; authUrl: string; apiKey: string; oauthClientId: string },
	mcp: { urls: string[]; token: string },
	elapsedMs: number,
): void {
	console.log(`
Ready in ${formatDuration(elapsedMs)}.

  n8n editor   ${editorUrl}
  Sign in as   ${DEMO_OWNER.email}  /  ${DEMO_OWNER.password}

  Sandbox API  ${sandbox.baseUrl}   (API key ${sandbox.apiKey})
  Auth server  ${sandbox.authUrl}   (OAuth2 client id ${sandbox.oauthClientId})
  Credentials  "${API_KEY_CREDENTIAL}" and "${OAUTH2_CREDENTIAL}",
               both ready (OAuth2 connected through the sandbox's authorization server)

  MCP server   ${mcp.urls.join('\n               ')}
               for AI assistants (MCP clients); send the header
               Authorization: Bearer ${mcp.token}
               (the token is kept in ${mcpTokenFile})

What to try first:
  1. Open the form of the onboarding example, ${editorUrl}/form/client-onboarding,
     and onboard a client: the workflow creates it in the sandbox.
  2. Within a minute the "Sync clients to a spreadsheet" example writes it to
     ${join(filesDir, 'compliance-clients.csv')}
     and, if you gave a review date within 30 days, "Review due alerts" appends an alert to
     ${join(filesDir, 'compliance-review-alerts.log')}
  3. In a new workflow, add the "Compliance Records" node: pick Client → Get Many, or create a
     client and watch the Partner and Services lists fill from the sandbox.
  4. Connect an AI assistant to the MCP server above and ask it "which clients have a review
     due in the next 30 days?" (README: Using with AI agents).

Press Ctrl-C to stop n8n and the sandbox.`);
}

/** Runs a command in the project folder, its output shown; rejects when it fails. */
function run(command: string, args: string[]): Promise<void> {
	return new Promise((resolvePromise, reject) => {
		const child = spawn(command, args, { cwd: projectRoot, stdio: 'inherit' });
		child.once('error', reject);
		child.once('exit', (code) =>
			code === 0
				? resolvePromise()
				: reject(new Error(`\`${command} ${args.join(' ')}\` failed (exit code ${code})`)),
		);
	});
}

/** Runs the handler on the first Ctrl-C (or SIGTERM, SIGHUP); later signals are ignored. */
function onStopSignal(handler: () => Promise<void>): void {
	let handled = false;
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		process.on(signal, () => {
			if (handled) return;
			handled = true;
			void handler();
		});
	}
}

function tail(file: string, lines: number): string {
	try {
		return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
	} catch {
		return '(no output)';
	}
}

main().catch((error: Error) => {
	console.error(`\nnpm start failed: ${error.message}`);
	process.exit(1);
});
