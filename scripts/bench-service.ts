/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions --
   development tooling: runs in Node, not in n8n */
/**
 * What the benchmarks that reach the service over a network share (bench-paging.ts,
 * bench-limits.ts): their floor node's description; the sandbox's CLI in a process of its own, behind the latency proxy
 * (latency-proxy.ts), optionally behind TLS with a certificate made for the run; the heap they
 * weigh (bench-upsert.ts too); and the table they print.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import type { INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { SERVICE_HEADERS } from '../shared/service';
import { startLatencyProxy, type Link } from './latency-proxy';
import { makeTestCertificate, type CertificateFiles } from './test-certificate';

/**
 * The description of a benchmark's floor: a minimal declarative node, with the API key
 * credential and the service's base URL and headers as request defaults, and `properties`.
 */
export function floorDescription(
	name: string,
	displayName: string,
	description: string,
	properties: INodeProperties[],
): INodeTypeDescription {
	return {
		displayName,
		name,
		group: ['transform'],
		version: 1,
		description,
		defaults: { name: displayName },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'complianceRecordsApi', required: true }],
		requestDefaults: {
			baseURL: '={{ $credentials.baseUrl }}',
			headers: { ...SERVICE_HEADERS },
			json: true,
		},
		properties,
	};
}

export interface Service {
	process: ChildProcess;
	/** The sandbox's own base URL (its controls are read there, not through the proxy). */
	baseUrl: string;
	apiKey: string;
}

/** The sandbox's CLI with `clients` clients and its test controls on, on free ports. */
async function startService(clients: number): Promise<Service> {
	const cli = require.resolve('compliance-records-sandbox/bin/compliance-records-sandbox.cjs');
	const child = spawn(
		process.execPath,
		[cli, '--port', '0', '--auth-port', '0', '--clients', String(clients), '--controls', '--quiet'],
		{ stdio: ['ignore', 'pipe', 'inherit'] },
	);
	stopsWithThisProcess(child);
	let output = '';
	child.stdout?.on('data', (chunk: Buffer) => (output += chunk));
	while (!output.includes('Press Ctrl-C to stop.')) {
		if (child.exitCode !== null) throw new Error(`The sandbox exited:\n${output}`);
		await sleep(10);
	}
	const field = (label: string) => new RegExp(`${label} +(\\S+)`).exec(output)?.[1] as string;
	return { process: child, baseUrl: field('API base URL'), apiKey: field('API key') };
}

/** Stops `child` when this process ends, also on a SIGTERM (Node runs no exit handler on a signal it does not handle). */
function stopsWithThisProcess(child: ChildProcess): void {
	const stop = () => child.kill('SIGINT');
	process.once('exit', stop);
	child.once('exit', () => process.off('exit', stop));
	if (process.listenerCount('SIGTERM') === 0) process.once('SIGTERM', () => process.exit(143));
}

async function stopService(service: Service): Promise<void> {
	if (service.process.exitCode !== null) return;
	const exited = new Promise((resolve) => service.process.once('exit', resolve));
	service.process.kill('SIGINT');
	await exited;
}

/** The sandbox behind the proxy: the base URL and key the loops are given. */
export interface Endpoint {
	service: Service;
	link: Link;
	baseUrl: string;
	apiKey: string;
}

/** Runs `use` against a sandbox of `clients` clients behind a latency proxy, then stops both. */
export async function withEndpoint<T>(
	clients: number,
	link: { rttMs: number; tls?: CertificateFiles },
	use: (endpoint: Endpoint) => Promise<T>,
): Promise<T> {
	const service = await startService(clients);
	try {
		const sandbox = new URL(service.baseUrl);
		const proxy = await startLatencyProxy({
			target: { host: sandbox.hostname, port: Number(sandbox.port) },
			...link,
		});
		try {
			const baseUrl = `${proxy.origin}${sandbox.pathname.replace(/\/+$/, '')}`;
			return await use({ service, link: proxy, baseUrl, apiKey: service.apiKey });
		} finally {
			await proxy.stop();
		}
	} finally {
		await stopService(service);
	}
}

/** A test control of the endpoint's sandbox (its own origin, not through the proxy); the answer's `data`. */
export async function control<T = unknown>(
	endpoint: Endpoint,
	method: string,
	route: string,
	body?: unknown,
): Promise<T> {
	const response = await fetch(`${new URL(endpoint.service.baseUrl).origin}/__sandbox${route}`, {
		method,
		headers: body === undefined ? {} : { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	if (!response.ok)
		throw new Error(
			`${method} /__sandbox${route} answered ${response.status}: ${await response.text()}`,
		);
	return response.status === 204 ? (undefined as T) : ((await response.json()) as { data: T }).data;
}

/**
 * The heap in use once the garbage is collected (run Node with --expose-gc). One full GC is not
 * enough: some of what a run in n8n's engine leaves is released only by a second one, after a
 * turn of the event loop.
 */
export async function heapInUse(): Promise<number> {
	const collectGarbage = globalThis.gc as () => void;
	collectGarbage();
	await new Promise((resolve) => setImmediate(resolve));
	collectGarbage();
	return process.memoryUsage().heapUsed;
}

/** A markdown table, the columns in `left` aligned left, the others right. */
export function table(header: string[], rows: string[][], left: number[]): string {
	const widths = header.map((title, column) =>
		Math.max(title.length, ...rows.map((row) => row[column].length)),
	);
	const pad = (cell: string, column: number) =>
		left.includes(column) ? cell.padEnd(widths[column]) : cell.padStart(widths[column]);
	const line = (cells: string[]) => `| ${cells.map(pad).join(' | ')} |`;
	const rule = widths.map((width, column) =>
		left.includes(column) ? `:${'-'.repeat(width + 1)}` : `${'-'.repeat(width + 1)}:`,
	);
	return [line(header), `|${rule.join('|')}|`, ...rows.map(line)].join('\n');
}

/**
 * Makes a certificate for the run and runs the calling script again, trusting it
 * (NODE_EXTRA_CA_CERTS, which Node reads at start-up), with `--tls-dir` naming its directory.
 */
export async function restartTrustingTestCertificate(name: string): Promise<number> {
	const dir = mkdtempSync(path.join(tmpdir(), `${name}-tls-`));
	try {
		const { certFile } = makeTestCertificate(dir);
		const child = spawn(
			process.execPath,
			[...process.execArgv, ...process.argv.slice(1), '--tls-dir', dir],
			{
				stdio: 'inherit',
				env: { ...process.env, NODE_EXTRA_CA_CERTS: certFile },
			},
		);
		// Ctrl-C reaches the child too, a SIGTERM is passed on: this process waits for it, then removes the directory.
		const ignore = () => undefined;
		process.on('SIGINT', ignore);
		process.on('SIGTERM', () => child.kill('SIGTERM'));
		return await new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}
