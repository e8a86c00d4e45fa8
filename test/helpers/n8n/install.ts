/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/require-node-api-error --
   development tooling, not a node: runs in Node, not in n8n */
// Installs a real n8n once into a cache outside the repo, one folder per n8n version, and reuses
// it afterwards. `npm start` and `npm run test:e2e` (so `.ci/run` too) use it;
// scripts/n8n-install.ts installs ahead of time. Run it under scripts/with-env.sh (Node 22+ and
// npm on PATH).
//
// Each n8n line runs on its own Node.js and needs its own workarounds for the npm registry n8n
// installs from (INSTALL_RECIPES below; docs/development.md, The demo). Dependencies are
// installed with --ignore-scripts (the Kafka client's install script downloads C libraries and
// fails), then only the native addons n8n loads are rebuilt, against the headers of the Node.js
// that will run n8n. A Node.js other than the one running this script is fetched from the npm
// registry (the `node` package) into the same cache, as scripts/node-env.sh fetches Node 24.
//
// An install is atomic: it happens in a temporary folder that is renamed into place only after
// n8n answers `--version`, so a half-done install is never taken as done. A lock folder per
// install keeps two runs from installing the same thing at the same time.

import { spawn } from 'node:child_process';
import {
	existsSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	renameSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The n8n version of `npm start` and of the end-to-end tests unless a test names another. */
export const N8N_VERSION = '2.40.7';

/** The newest release of n8n's 1.x line, which the end-to-end tests also run. */
export const N8N_1X_VERSION = '1.123.81';

/** Every version the end-to-end tests run. */
export const E2E_VERSIONS = [N8N_VERSION, N8N_1X_VERSION];

interface InstallRecipe {
	/** The Node.js major version that runs this n8n line. */
	node: number;
	/** package.json `overrides` that let the line install from the registry. */
	overrides: Record<string, string>;
}

/** What each n8n line needs, measured with 2.40.7 and 1.123.81. */
const INSTALL_RECIPES: Record<number, InstallRecipe> = {
	// 2.x needs Node 24 (its isolated-vm ships prebuilds for it); linkedom 0.18.15 depends on a
	// package the registry lacks, 0.18.14 does not.
	2: { node: 24, overrides: { linkedom: '0.18.14' } },
	// 1.x: its isolated-vm rules out Node 20; Node 22 is what was measured. n8n-nodes-base 1.x pins
	// xlsx to a tarball on SheetJS's own CDN, which may be unreachable: the same release (0.20.2)
	// is on the npm registry as @e965/xlsx.
	1: { node: 22, overrides: { xlsx: 'npm:@e965/xlsx@0.20.2' } },
};

/** Native addons n8n needs that --ignore-scripts left unbuilt. */
const NATIVE_ADDONS = ['sqlite3'];

const cacheRoot =
	process.env.COMPLIANCE_RECORDS_CACHE ??
	join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'n8n-nodes-compliance-records');

/** One installed n8n version: where it is, and the Node.js that runs it. */
export interface N8nRuntime {
	version: string;
	dir: string;
	/** The n8n command-line entry point; run it with `nodeBin`. */
	bin: string;
	/** The Node.js major version this n8n runs on. */
	nodeMajor: number;
	/** The Node.js executable that runs this n8n (valid once ensureN8n has run, or when it is this process's). */
	nodeBin: string;
}

function recipeFor(version: string): InstallRecipe {
	const recipe = INSTALL_RECIPES[Number(version.split('.')[0])];
	if (!recipe)
		throw new Error(`No install recipe for n8n ${version}: only the 1.x and 2.x lines are known`);
	return recipe;
}

export function n8nRuntime(version = N8N_VERSION): N8nRuntime {
	const dir = join(cacheRoot, `n8n-${version}`);
	const nodeMajor = recipeFor(version).node;
	return {
		version,
		dir,
		bin: join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
		nodeMajor,
		nodeBin: nodeRuntime(nodeMajor).bin,
	};
}

export const installLog = (message: string) => process.stderr.write(`[n8n install] ${message}\n`);

const completeMarker = (dir: string) => join(dir, '.install-complete');

export const isN8nInstalled = (version = N8N_VERSION) => {
	const runtime = n8nRuntime(version);
	return (
		existsSync(completeMarker(runtime.dir)) &&
		existsSync(runtime.bin) &&
		existsSync(runtime.nodeBin)
	);
};

/** Installs n8n (and the Node.js it runs on) unless the cache already holds it. */
export async function ensureN8n(version = N8N_VERSION): Promise<N8nRuntime> {
	const runtime = n8nRuntime(version);
	if (isN8nInstalled(version)) return runtime;
	const thisNode = Number(process.versions.node.split('.')[0]);
	if (thisNode < 22) {
		throw new Error(
			`Installing n8n needs Node 22+ (this is Node ${process.versions.node}); run under scripts/with-env.sh`,
		);
	}
	await ensureNode(runtime.nodeMajor);
	await withLock(runtime.dir, async () => {
		// Another run may have finished the install while this one waited for the lock.
		if (!isN8nInstalled(version)) await install(runtime);
	});
	return runtime;
}

// ---- Node.js ---------------------------------------------------------------------------------

interface NodeRuntime {
	bin: string;
	/** For npm_config_nodedir: the folder holding `include/node`, the headers addons build against. */
	headersDir?: string;
	/** The folder to put first on PATH so that `node` (and npm run by it) is this Node.js. */
	binDir: string;
}

/** This process's Node.js when it is the wanted major version, else one fetched into the cache. */
function nodeRuntime(major: number): NodeRuntime {
	if (Number(process.versions.node.split('.')[0]) === major) {
		return {
			bin: process.execPath,
			binDir: join(process.execPath, '..'),
			// scripts/node-env.sh sets it when it fetched this Node.js; otherwise npm knows its own.
			headersDir: process.env.npm_config_nodedir,
		};
	}
	const prefix = join(cacheRoot, `node-${major}`);
	return {
		bin: join(prefix, 'node_modules', '.bin', 'node'),
		binDir: join(prefix, 'node_modules', '.bin'),
		headersDir: join(
			prefix,
			'node_modules',
			'node',
			'node_modules',
			`node-${process.platform}-${process.arch}`,
		),
	};
}

async function ensureNode(major: number): Promise<void> {
	const node = nodeRuntime(major);
	if (existsSync(node.bin)) return;
	const prefix = join(node.binDir, '..', '..');
	await withLock(prefix, async () => {
		if (existsSync(node.bin)) return;
		installLog(
			`fetching Node ${major} from the npm registry (the node@${major} package) into ${prefix}`,
		);
		const tempDir = `${prefix}.tmp-${process.pid}`;
		rmSync(tempDir, { recursive: true, force: true });
		mkdirSync(tempDir, { recursive: true });
		await runWithProgress(
			'npm',
			[
				'install',
				'--prefix',
				tempDir,
				'--no-save',
				'--no-audit',
				'--no-fund',
				'--loglevel=error',
				`node@${major}`,
			],
			tempDir,
			() => 'downloading',
		);
		rmSync(prefix, { recursive: true, force: true });
		renameSync(tempDir, prefix);
		installLog(`Node ${(await capture(node.bin, ['--version'], prefix)).trim()} ready`);
	});
}

// ---- n8n -------------------------------------------------------------------------------------

async function install(runtime: N8nRuntime) {
	const { version } = runtime;
	const startedAt = Date.now();
	const tempDir = `${runtime.dir}.tmp-${process.pid}`;
	removeLeftovers(runtime);
	mkdirSync(tempDir, { recursive: true });
	writeFileSync(
		join(tempDir, 'package.json'),
		JSON.stringify(
			{
				name: 'n8n-runtime',
				private: true,
				description: `n8n ${version} for the end-to-end tests and the demo of n8n-nodes-compliance-records`,
				dependencies: { n8n: version },
				overrides: recipeFor(version).overrides,
			},
			null,
			'\t',
		),
	);
	installLog(`installing n8n ${version} into ${runtime.dir} (on Node ${runtime.nodeMajor})`);
	installLog('first time only: about 5 minutes and 2 to 3 GB; later runs reuse it');

	// npm and the addon build run under the Node.js that will run n8n, against its headers.
	const node = nodeRuntime(runtime.nodeMajor);
	const env: NodeJS.ProcessEnv = {
		...process.env,
		PATH: `${node.binDir}${delimiter}${process.env.PATH ?? ''}`,
		...(node.headersDir && { npm_config_nodedir: node.headersDir }),
	};

	// npm prints nothing while it works; with --timing it logs each step and each package as it
	// ends. Its timing file (which npm never deletes) and debug log stay with the install.
	const progress = npmInstallProgress(join(tempDir, 'node_modules'));
	await runWithProgress(
		'npm',
		[
			'install',
			'--ignore-scripts',
			'--no-audit',
			'--no-fund',
			'--loglevel=http',
			'--timing',
			`--logs-dir=${join(tempDir, 'npm-logs')}`,
		],
		tempDir,
		progress.describe,
		progress.onLine,
		env,
	);
	installLog(
		`rebuilding native addons (${NATIVE_ADDONS.join(', ')}) for Node ${runtime.nodeMajor}; SQLite compiles from source`,
	);
	await runWithProgress(
		'npm',
		['rebuild', ...NATIVE_ADDONS, '--loglevel=error'],
		tempDir,
		() => 'compiling',
		undefined,
		env,
	);

	const reported = (
		await capture(
			node.bin,
			[join(tempDir, 'node_modules', 'n8n', 'bin', 'n8n'), '--version'],
			tempDir,
		)
	).trim();
	if (reported !== version)
		throw new Error(`installed n8n reports version "${reported}", expected ${version}`);
	const nodeVersion = (await capture(node.bin, ['--version'], tempDir)).trim();
	writeFileSync(completeMarker(tempDir), `n8n ${version} on Node ${nodeVersion}\n`);
	renameSync(tempDir, runtime.dir);
	installLog(`n8n ${version} installed in ${formatDuration(Date.now() - startedAt)}`);
}

/** Removes what an interrupted install left: temporary folders and an unfinished target. */
function removeLeftovers(runtime: N8nRuntime) {
	const prefix = `n8n-${runtime.version}.tmp-`;
	for (const name of readdirSync(cacheRoot)) {
		if (name.startsWith(prefix)) rmSync(join(cacheRoot, name), { recursive: true, force: true });
	}
	if (existsSync(runtime.dir)) rmSync(runtime.dir, { recursive: true, force: true });
}

// ---- helpers ---------------------------------------------------------------------------------

/** Runs `work` holding the lock folder `<target>.lock`; a lock left by a dead process is taken over. */
async function withLock(target: string, work: () => Promise<void>): Promise<void> {
	mkdirSync(cacheRoot, { recursive: true });
	const lockDir = `${target}.lock`;
	let waitingSince: number | undefined;
	for (;;) {
		try {
			mkdirSync(lockDir); // atomic: fails if another run holds the lock
			writeFileSync(join(lockDir, 'pid'), String(process.pid));
			break;
		} catch (error) {
			if (error.code !== 'EEXIST') throw error;
		}
		const holder = Number(readFileIfExists(join(lockDir, 'pid')));
		if (holder && !isAlive(holder)) {
			installLog(`removing a stale lock left by process ${holder}`);
			rmSync(lockDir, { recursive: true, force: true });
			continue;
		}
		if (!waitingSince) {
			waitingSince = Date.now();
			installLog(
				`another run (process ${holder || '?'}) is installing into ${target}; waiting for it to finish`,
			);
		}
		await sleep(2000);
	}
	try {
		await work();
	} finally {
		rmSync(lockDir, { recursive: true, force: true });
	}
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
	env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
	const startedAt = Date.now();
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
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
			() => installLog(`  ${formatDuration(Date.now() - startedAt)}: ${describeProgress()}`),
			15000,
		);
		child.on('error', (error) => {
			clearInterval(ticker);
			reject(error);
		});
		child.on('close', (code) => {
			clearInterval(ticker);
			if (code === 0) resolve();
			else
				reject(
					new Error(
						`\`${command} ${args.join(' ')}\` failed (exit ${code}):\n${output.slice(-4000)}`,
					),
				);
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
			code === 0
				? resolve(output)
				: reject(new Error(`\`${args.join(' ')}\` failed (exit ${code})`)),
		);
	});
}

/**
 * What `npm install` is doing, from its log (`--loglevel=http --timing`). Measured with n8n 2.40.7:
 * it resolves the tree, fetching package manifests (80 s); makes every package's folder, empty,
 * at once; fetches and unpacks all 2,356 packages together (117 s, the first done after 40 s);
 * links their commands and writes package-lock.json (under a second).
 */
function npmInstallProgress(nodeModules: string): {
	onLine(line: string): void;
	describe(): string;
} {
	let phase: 'resolving' | 'unpacking' | 'finishing' = 'resolving';
	let manifests = 0;
	let packages = 0;
	let unpacked = 0;
	return {
		onLine(line) {
			if (/ http fetch GET \d+ \S+/.test(line) && !/\.tgz /.test(line)) manifests++;
			// npm ends a timer per package when it is unpacked, and one per step when it is done.
			else if (/ timing reifyNode:\S+ Completed/.test(line)) unpacked++;
			else if (/ timing reify:createSparse Completed/.test(line)) {
				phase = 'unpacking';
				packages = countPackageFolders(nodeModules);
			} else if (/ timing reify:unpack Completed/.test(line)) phase = 'finishing';
		},
		describe() {
			if (phase === 'resolving')
				return `resolving the dependency tree: ${count(manifests)} package manifests fetched`;
			if (phase === 'unpacking')
				return `fetching and unpacking ${count(packages)} packages: ${count(unpacked)} done`;
			return `${count(unpacked)} packages unpacked; linking their commands and writing package-lock.json`;
		},
	};
}

const count = (n: number) => n.toLocaleString('en-US');

/** The packages in a node_modules folder, nested ones included (one folder each). */
function countPackageFolders(nodeModules: string): number {
	if (!existsSync(nodeModules)) return 0;
	let total = 0;
	for (const name of readdirSync(nodeModules)) {
		if (name.startsWith('.')) continue;
		const folders = name.startsWith('@')
			? readdirSync(join(nodeModules, name)).map((inScope) => join(name, inScope))
			: [name];
		for (const folder of folders)
			total += 1 + countPackageFolders(join(nodeModules, folder, 'node_modules'));
	}
	return total;
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
	return seconds < 60
		? `${seconds}s`
		: `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}
