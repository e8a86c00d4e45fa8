// Installs the pinned real n8n once into a cache outside the repo and reuses it afterwards.
// `npm start` and `npm run test:e2e` (so `.ci/run` too) use it; `tsx scripts/n8n-install.ts`
// installs ahead of time. Needs Node 22+ on PATH: run it under scripts/with-env.sh.
//
// Two workarounds for the npm registry n8n installs from (see CONTRIBUTING.md, The demo):
// - linkedom is pinned to 0.18.14: 0.18.15 depends on a package the registry lacks;
// - dependencies are installed with --ignore-scripts (the Kafka client's install script
//   downloads C libraries and fails), then only the native addons n8n loads are rebuilt.
//
// The install is atomic: it happens in a temporary folder that is renamed into place only
// after n8n answers `--version`, so a half-done install is never taken as done. A lock
// folder keeps two runs from installing at the same time.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const N8N_VERSION = '2.40.7';

/** Native addons n8n needs that --ignore-scripts left unbuilt. */
const NATIVE_ADDONS = ['sqlite3'];

const cacheRoot =
	process.env.COMPLIANCE_RECORDS_CACHE ??
	join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'n8n-nodes-compliance-records');

export const n8nDir = join(cacheRoot, `n8n-${N8N_VERSION}`);
/** The n8n command-line entry point; run it with `node` (Node 24). */
export const n8nBin = join(n8nDir, 'node_modules', 'n8n', 'bin', 'n8n');
const completeMarker = join(n8nDir, '.install-complete');
const lockDir = `${n8nDir}.lock`;

const log = (message: string) => process.stderr.write(`[n8n install] ${message}\n`);

export const isN8nInstalled = () => existsSync(completeMarker) && existsSync(n8nBin);

/** Installs n8n unless the cache already holds it; returns the path of the n8n entry point. */
export async function ensureN8n(): Promise<string> {
	if (isN8nInstalled()) return n8nBin;
	const nodeMajor = Number(process.versions.node.split('.')[0]);
	if (nodeMajor < 22) {
		throw new Error(`n8n ${N8N_VERSION} needs Node 22+ (this is Node ${process.versions.node}); run under scripts/with-env.sh`);
	}
	await acquireLock();
	try {
		// Another run may have finished the install while this one waited for the lock.
		if (!isN8nInstalled()) await install();
	} finally {
		rmSync(lockDir, { recursive: true, force: true });
	}
	return n8nBin;
}

async function acquireLock() {
	mkdirSync(cacheRoot, { recursive: true });
	let waitingSince: number | undefined;
	for (;;) {
		try {
			mkdirSync(lockDir); // atomic: fails if another run holds the lock
			writeFileSync(join(lockDir, 'pid'), String(process.pid));
			return;
		} catch (error) {
			if (error.code !== 'EEXIST') throw error;
		}
		const holder = Number(readFileIfExists(join(lockDir, 'pid')));
		if (holder && !isAlive(holder)) {
			log(`removing a stale lock left by process ${holder}`);
			rmSync(lockDir, { recursive: true, force: true });
			continue;
		}
		if (!waitingSince) {
			waitingSince = Date.now();
			log(`another run (process ${holder || '?'}) is installing n8n; waiting for it to finish`);
		}
		await sleep(2000);
	}
}

async function install() {
	const startedAt = Date.now();
	const tempDir = `${n8nDir}.tmp-${process.pid}`;
	removeLeftovers();
	mkdirSync(tempDir, { recursive: true });
	writeFileSync(
		join(tempDir, 'package.json'),
		JSON.stringify(
			{
				name: 'n8n-runtime',
				private: true,
				description: `n8n ${N8N_VERSION} for the end-to-end tests and the demo of n8n-nodes-compliance-records`,
				dependencies: { n8n: N8N_VERSION },
				overrides: { linkedom: '0.18.14' },
			},
			null,
			'\t',
		),
	);
	log(`installing n8n ${N8N_VERSION} into ${n8nDir}`);
	log('first time only: about 5 minutes and 3 GB; later runs reuse it');

	// npm prints nothing while it works; its http log lines show the downloads (none when npm's
	// cache already has the packages), then node_modules fills up.
	let tarballs = 0;
	const describeInstall = () => {
		const unpacked = countPackages(join(tempDir, 'node_modules'));
		if (unpacked > 0) return `${unpacked} of about 1,500 packages unpacked`;
		return tarballs > 0 ? `${tarballs} of about 1,500 packages downloaded` : 'resolving the dependency tree';
	};
	await runWithProgress(
		'npm',
		['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=http'],
		tempDir,
		describeInstall,
		(line) => {
			if (/ fetch GET 200 \S+\.tgz/.test(line)) tarballs++;
		},
	);
	log(`rebuilding native addons (${NATIVE_ADDONS.join(', ')}) for Node ${process.versions.node}; SQLite compiles from source`);
	await runWithProgress('npm', ['rebuild', ...NATIVE_ADDONS, '--loglevel=error'], tempDir, () => 'compiling');

	const version = await capture(process.execPath, [join(tempDir, 'node_modules', 'n8n', 'bin', 'n8n'), '--version'], tempDir);
	if (version.trim() !== N8N_VERSION) throw new Error(`installed n8n reports version "${version.trim()}", expected ${N8N_VERSION}`);
	writeFileSync(join(tempDir, '.install-complete'), `n8n ${N8N_VERSION} on Node ${process.versions.node}\n`);
	renameSync(tempDir, n8nDir);
	log(`n8n ${N8N_VERSION} installed in ${formatDuration(Date.now() - startedAt)}`);
}

/** Removes what an interrupted install left: temporary folders and an unfinished target. */
function removeLeftovers() {
	const prefix = `n8n-${N8N_VERSION}.tmp-`;
	for (const name of readdirSync(cacheRoot)) {
		if (name.startsWith(prefix)) rmSync(join(cacheRoot, name), { recursive: true, force: true });
	}
	if (existsSync(n8nDir)) rmSync(n8nDir, { recursive: true, force: true });
}

/**
 * Runs a command, printing a progress line every 15 s; `onLine` sees each line it prints.
 * Rejects with the end of its output when it fails.
 */
function runWithProgress(
	command: string,
	args: string[],
	cwd: string,
	describeProgress: () => string,
	onLine: (line: string) => void = () => {},
): Promise<void> {
	const startedAt = Date.now();
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
		let output = '';
		let partialLine = '';
		const collect = (chunk: Buffer) => {
			output = (output + chunk).slice(-20000);
			const lines = (partialLine + chunk).split('\n');
			partialLine = lines.pop() ?? '';
			lines.forEach(onLine);
		};
		child.stdout.on('data', collect);
		child.stderr.on('data', collect);
		const ticker = setInterval(
			() => log(`  ${formatDuration(Date.now() - startedAt)}: ${describeProgress()}`),
			15000,
		);
		child.on('error', (error) => {
			clearInterval(ticker);
			reject(error);
		});
		child.on('close', (code) => {
			clearInterval(ticker);
			if (code === 0) resolve();
			else reject(new Error(`\`${command} ${args.join(' ')}\` failed (exit ${code}):\n${output.slice(-4000)}`));
		});
	});
}

function capture(command: string, args: string[], cwd: string): Promise<string> {
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
		let output = '';
		child.stdout.on('data', (chunk) => (output += chunk));
		child.on('error', reject);
		child.on('close', (code) =>
			code === 0 ? resolve(output) : reject(new Error(`\`${args.join(' ')}\` failed (exit ${code})`)),
		);
	});
}

function countPackages(nodeModules: string): number {
	if (!existsSync(nodeModules)) return 0;
	let count = 0;
	for (const name of readdirSync(nodeModules)) {
		if (name.startsWith('.')) continue;
		count += name.startsWith('@') ? readdirSync(join(nodeModules, name)).length : 1;
	}
	return count;
}

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return error.code === 'EPERM';
	}
}

function readFileIfExists(path: string): string {
	try {
		return readFileSync(path, 'utf8');
	} catch {
		return '';
	}
}

export function formatDuration(ms: number): string {
	const seconds = Math.round(ms / 1000);
	return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

if (require.main === module) {
	ensureN8n()
		.then((bin) => log(`ready: ${bin}`))
		.catch((error) => {
			log(error.message);
			process.exit(1);
		});
}
