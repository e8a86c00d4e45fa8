/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/require-node-api-error --
   development tooling, not a node: runs in Node, not in n8n */
// n8n in queue mode, as firms scale it: PostgreSQL for the data, Redis for the queue, one main
// (editor, triggers and pollers, enqueues executions) and workers (run them). Each piece is its
// own process on a free loopback port, started here and stopped by `stop()`, whatever state the
// rest is in. The package is installed into every instance's `~/.n8n/nodes`, as the README tells
// users. Used by the queue-mode end-to-end tests and the crash-recovery harness.
//
// PostgreSQL and Redis are Debian's packages (`postgresql`, `redis-server`); scripts/test-e2e.sh
// installs them on a machine that lacks them.
import { spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import {
	chmodSync,
	chownSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { freePort, installPackage, N8n, type N8nOptions } from './instance';

const run = promisify(execFile);

/** A service process the caller must stop. */
export interface Service {
	port: number;
	stop(): Promise<void>;
}

function postgresBinDir(): string {
	const root = '/usr/lib/postgresql';
	const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
	const found = versions
		.map((version) => join(root, version, 'bin'))
		.find((dir) => existsSync(join(dir, 'pg_ctl')));
	if (!found)
		throw new Error(
			'PostgreSQL is not installed (apt-get install postgresql): scripts/test-e2e.sh installs it',
		);
	return found;
}

/** PostgreSQL refuses to run as root: as root, its commands run as the `postgres` user. */
function asPostgresUser(command: string, args: string[]): [string, string[]] {
	return process.getuid?.() === 0
		? ['runuser', ['-u', 'postgres', '--', command, ...args]]
		: [command, args];
}

/**
 * A private PostgreSQL cluster in a temporary folder, listening on 127.0.0.1 only, with a
 * database `n8n`; local connections are trusted (a test machine's loopback).
 */
export async function startPostgres(): Promise<Service & { user: string; database: string }> {
	const bin = postgresBinDir();
	const dir = mkdtempSync(join(tmpdir(), 'compliance-records-postgres-'));
	const dataDir = join(dir, 'data');
	const socketDir = join(dir, 'socket');
	mkdirSync(dataDir);
	mkdirSync(socketDir);
	if (process.getuid?.() === 0) {
		const { stdout } = await run('id', ['-u', 'postgres']);
		const uid = Number(stdout.trim());
		for (const path of [dir, dataDir, socketDir]) chownSync(path, uid, uid);
		chmodSync(dir, 0o755);
	}
	const pg = (command: string, args: string[]) => run(...asPostgresUser(join(bin, command), args));
	const port = await freePort();
	let started = false;
	const stop = async () => {
		if (started)
			await pg('pg_ctl', ['stop', '-D', dataDir, '-m', 'immediate', '-w']).catch(() => undefined);
		rmSync(dir, { recursive: true, force: true });
	};
	try {
		await pg('initdb', [
			'-D',
			dataDir,
			'-U',
			'postgres',
			'--auth=trust',
			'--encoding=UTF8',
			'--no-instructions',
		]);
		started = true;
		await pg('pg_ctl', [
			'start',
			'-D',
			dataDir,
			'-w',
			'-l',
			join(dir, 'postgres.log'),
			'-o',
			`-p ${port} -k ${socketDir} -c listen_addresses=127.0.0.1 -c fsync=off`,
		]);
		await pg('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', 'n8n']);
	} catch (error) {
		await stop();
		throw error;
	}
	return { port, user: 'postgres', database: 'n8n', stop };
}

/** A private Redis on 127.0.0.1, keeping nothing on disk. */
export async function startRedis(): Promise<Service> {
	const port = await freePort();
	const child = spawn(
		'redis-server',
		['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
		{
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
	const stop = () => stopChild(child);
	try {
		await new Promise<void>((resolve, reject) => {
			let output = '';
			child.once('error', reject);
			child.once('close', (code) =>
				reject(new Error(`redis-server exited (code ${code}):\n${output}`)),
			);
			child.stdout.on('data', (chunk) => {
				output += chunk;
				if (output.includes('Ready to accept connections')) resolve();
			});
			child.stderr.on('data', (chunk) => (output += chunk));
		});
	} catch (error) {
		await stop();
		throw error;
	}
	return { port, stop };
}

async function stopChild(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return;
	const closed = new Promise((resolve) => child.once('close', resolve));
	child.kill('SIGTERM');
	const killed = setTimeout(() => child.kill('SIGKILL'), 10_000);
	await closed;
	clearTimeout(killed);
}

export interface QueueModeOptions {
	/** Where the instances keep their user folders, files and logs. */
	dir: string;
	/** The packed package (`packPackage`), installed into every instance. */
	tarball: string;
	/** Environment variables for every instance (scheduler flags, say). */
	env?: Record<string, string>;
}

/** One running queue-mode setup. `stop()` stops everything, in order, even half-started. */
export class QueueMode {
	main?: N8n;
	worker?: N8n;
	mainOptions?: N8nOptions;
	workerOptions?: N8nOptions;
	private postgres?: Service;
	private redis?: Service;

	constructor(private readonly options: QueueModeOptions) {}

	/** Starts PostgreSQL, Redis, then the main and a worker, and waits until both are ready. */
	async start(): Promise<this> {
		try {
			[this.postgres, this.redis] = await Promise.all([startPostgres(), startRedis()]);
			this.mainOptions = await this.instanceOptions('main', { N8N_LISTEN_ADDRESS: '127.0.0.1' });
			const healthPort = await freePort();
			this.workerOptions = await this.instanceOptions('worker', {
				QUEUE_HEALTH_CHECK_ACTIVE: 'true',
				QUEUE_HEALTH_CHECK_PORT: String(healthPort),
				N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
			});
			// The main first: it creates the database's tables, which the worker expects.
			await this.startMain();
			await this.startWorker();
			return this;
		} catch (error) {
			await this.stop();
			throw error;
		}
	}

	async startMain(): Promise<N8n> {
		this.main = N8n.launch(this.mainOptions as N8nOptions, 'start');
		await this.main.ready();
		return this.main;
	}

	async startWorker(): Promise<N8n> {
		this.worker = N8n.launch(this.workerOptions as N8nOptions, 'worker');
		await this.worker.ready();
		return this.worker;
	}

	async stop(): Promise<void> {
		await this.worker?.stop();
		await this.main?.stop();
		await this.redis?.stop();
		await this.postgres?.stop();
	}

	private async instanceOptions(name: string, own: Record<string, string>): Promise<N8nOptions> {
		const postgres = this.postgres as Service & { user: string; database: string };
		const userFolder = join(this.options.dir, name);
		await installPackage(userFolder, this.options.tarball);
		return {
			userFolder,
			port: await freePort(),
			brokerPort: await freePort(),
			filesDir: join(this.options.dir, 'files'),
			logFile: join(this.options.dir, `${name}.log`),
			env: {
				EXECUTIONS_MODE: 'queue',
				DB_TYPE: 'postgresdb',
				DB_POSTGRESDB_HOST: '127.0.0.1',
				DB_POSTGRESDB_PORT: String(postgres.port),
				DB_POSTGRESDB_DATABASE: postgres.database,
				DB_POSTGRESDB_USER: postgres.user,
				DB_POSTGRESDB_PASSWORD: '',
				QUEUE_BULL_REDIS_HOST: '127.0.0.1',
				QUEUE_BULL_REDIS_PORT: String((this.redis as Service).port),
				// Every instance decrypts the same credentials.
				N8N_ENCRYPTION_KEY: 'compliance-records-queue-mode-test-key',
				OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
				...this.options.env,
				...own,
			},
		};
	}
}
