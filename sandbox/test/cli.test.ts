/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions --
   development tooling: runs in Node, not in n8n */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { type Reply, send } from './helpers';
import { DEMO_OAUTH_CLIENT_ID } from '../src';

const ROOT = join(__dirname, '..');

/** Runs the CLI as `npm run sandbox` and the `compliance-records-sandbox` command do, collecting what it prints. */
function runCli(args: string[]) {
	const child: ChildProcessWithoutNullStreams = spawn(
		process.execPath,
		['bin/compliance-records-sandbox.cjs', ...args],
		{ cwd: ROOT },
	);
	let output = '';
	child.stdout.on('data', (chunk) => (output += chunk));
	child.stderr.on('data', (chunk) => (output += chunk));
	const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
	const printed = (text: string) =>
		new Promise<string>((resolve, reject) => {
			const check = () => {
				if (output.includes(text)) return resolve(output);
				if (child.exitCode !== null) return reject(new Error(`The CLI exited first:\n${output}`));
				setTimeout(check, 25);
			};
			check();
		});
	return { child, exited, printed, output: () => output };
}

const banner = (output: string, label: string) => new RegExp(`${label} +(\\S+)`).exec(output)?.[1];

// A signal lets the CLI close its servers and exit 0. Windows cannot send one to another process
// (kill() ends it outright there), so there the test only stops it.
const stops: Array<{ signal?: NodeJS.Signals; how: string }> =
	process.platform === 'win32'
		? [{ how: 'kill()' }]
		: [
				{ signal: 'SIGINT', how: 'SIGINT, exiting 0' },
				{ signal: 'SIGTERM', how: 'SIGTERM, exiting 0' },
			];

describe('the compliance-records-sandbox CLI', () => {
	it.each(stops)(
		'starts, prints where it listens and the demo credentials, serves, and stops on $how',
		async ({ signal }) => {
			const cli = runCli([
				'--port',
				'0',
				'--auth-port',
				'0',
				'--clients',
				'3',
				'--error-format',
				'problem',
			]);
			try {
				const output = await cli.printed('Press Ctrl-C to stop.');
				const baseUrl = banner(output, 'API base URL')!;
				const authUrl = banner(output, 'Auth server URL')!;
				const apiKey = banner(output, 'API key')!;
				expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
				expect(banner(output, 'OAuth client id')).toBe(DEMO_OAUTH_CLIENT_ID);

				const clients = await send(`${baseUrl}/clients`, {
					headers: { 'accept-version': '1.0.0', authorization: `Bearer ${apiKey}` },
				});
				expect(clients.status).toBe(200);
				expect(clients.body.meta.total).toBe(3);
				const refused = await send(`${baseUrl}/firm`, {
					headers: { 'accept-version': '1.0.0', authorization: 'Bearer not-a-real-secret-42' },
				});
				expect(refused.status).toBe(401);
				expect(refused.headers.get('content-type')).toBe('application/problem+json');
				expect(refused.body).toMatchObject({
					status: 401,
					title: 'Unauthorized',
					detail: expect.stringMatching(/^Unknown API key/),
				});
				const leaky = await send(`${baseUrl}/clients?limit=1&api_key=not-a-real-secret-43`, {
					headers: { 'accept-version': '1.0.0' },
				});
				expect(leaky.status).toBe(401);
				expect((await send(`${authUrl}/.well-known/openid-configuration`)).body.issuer).toBe(
					authUrl,
				);
				await cli.printed('GET /firm 401');

				cli.child.kill(signal);
				const exitCode = await cli.exited;
				if (signal) expect(exitCode).toBe(0);
				expect(cli.output()).not.toMatch(/not-a-real-secret/);
				expect(cli.output()).toContain('GET /clients?limit=1&api_key=%28hidden%29 401');
				expect(cli.output().split(apiKey)).toHaveLength(2); // the demo key, announced once, never logged
			} finally {
				cli.child.kill('SIGKILL');
			}
		},
	);

	/** Starts the CLI with limits as `flags`: its banner's Limits line, and a GET /firm. */
	async function withLimits(
		flags: string[],
		use: (limits: string, getFirm: () => Promise<Reply>) => Promise<void>,
	): Promise<void> {
		const cli = runCli(['--port', '0', '--auth-port', '0', '--clients', '1', '--quiet', ...flags]);
		try {
			const output = await cli.printed('Press Ctrl-C to stop.');
			const headers = {
				'accept-version': '1.0.0',
				authorization: `Bearer ${banner(output, 'API key')}`,
			};
			const limits = /^ {2}Limits +(.*)$/m.exec(output)?.[1] ?? '';
			await use(limits, () => send(`${banner(output, 'API base URL')!}/firm`, { headers }));
		} finally {
			cli.child.kill('SIGKILL');
		}
	}

	it("takes a real service's limits as flags, prints them, and plays them", async () => {
		await withLimits(
			[
				...['--rate-limit', '100/60', '--burst', '1'],
				...['--latency', '20', '--latency-spread', '10', '--unavailable-rate', '0'],
			],
			async (limits, getFirm) => {
				expect(limits).toBe(
					'100 requests per 60 seconds (burst 1), 20 to 30 ms added to each answer',
				);
				expect((await getFirm()).status).toBe(200);
				expect((await getFirm()).status).toBe(429);
			},
		);
	});

	it('takes the shape of the rate limit and its headers as flags', async () => {
		await withLimits(
			[
				'--rate-limit',
				'1/60',
				'--rate-limit-shape',
				'sliding-window',
				'--rate-limit-headers',
				'x-ratelimit',
			],
			async (limits, getFirm) => {
				expect(limits).toBe('1 requests per 60 seconds (sliding-window, x-ratelimit headers)');
				const answer = await getFirm();
				expect([answer.status, answer.headers.get('x-ratelimit-remaining')]).toEqual([200, '0']);
			},
		);
	});

	it('prints its options with --help', async () => {
		const cli = runCli(['--help']);
		expect(await cli.exited).toBe(0);
		expect(cli.output()).toMatch(/--clients N/);
		expect(cli.output()).toMatch(
			/--error-format NAME +shape of the API's error answers: message, nested, errors, problem, text, html/,
		);
	});

	it('says what is wrong and exits 2 for a bad flag or a port in use', async () => {
		const badFlag = runCli(['--clients', 'many']);
		expect(await badFlag.exited).toBe(2);
		expect(badFlag.output()).toMatch(/--clients must be a whole number/);

		const badFormat = runCli(['--error-format', 'xml']);
		expect(await badFormat.exited).toBe(2);
		expect(badFormat.output()).toMatch(
			/--error-format must be one of message, nested, errors, problem, text, html \(got 'xml'\)/,
		);

		const badRate = runCli(['--rate-limit', 'fast']);
		expect(await badRate.exited).toBe(2);
		expect(badRate.output()).toMatch(
			/--rate-limit must be N or N\/SECONDS, e.g. 40 or 100\/60 \(got 'fast'\)/,
		);

		const blocker = createServer();
		await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
		try {
			const { port } = blocker.address() as { port: number };
			const busy = runCli(['--port', String(port), '--auth-port', '0']);
			expect(await busy.exited).toBe(2);
			expect(busy.output()).toMatch(/port is already in use/);
		} finally {
			blocker.close();
		}
	});
});
