/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- development tooling: runs in Node, not in n8n */
/**
 * A network link with latency, for benchmarks on one machine (no `netem` needed): a TCP proxy
 * on loopback, in a process of its own, between the clients and a service.
 *
 * - Every chunk is held RTT/2 in each direction, in order. The first bytes of a connection are
 *   held one RTT more: on a real link, TCP's handshake takes a round trip before a client can
 *   send, which a proxy cannot delay (the kernel accepts the connection at once).
 * - With `tls`, the service is behind TLS: the delayed bytes are TLS, so its handshake pays the
 *   latency; TLS ends in this process, which forwards plain HTTP to the service.
 * - It counts the connections it accepts, and can hang up those still open (a service's idle
 *   timeout), so that every measured loop starts without one.
 * It does not emulate bandwidth, loss or TCP's slow start.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import tls from 'node:tls';

import type { CertificateFiles } from './test-certificate';

export interface LinkOptions {
	/** Where the service listens (plain TCP on loopback). */
	target: { host: string; port: number };
	/** Round-trip time added, in milliseconds (0: none). */
	rttMs: number;
	/** Puts the service behind TLS with this certificate. */
	tls?: CertificateFiles;
}

export interface Link {
	/** The service's origin through the link, e.g. `https://127.0.0.1:41234`. */
	origin: string;
	/** Connections accepted since the last call. */
	connectionsSinceLastCall(): Promise<number>;
	/** Closes every connection still open, as a service's idle timeout would. */
	hangUp(): Promise<void>;
	stop(): Promise<void>;
}

type Command = 'connections' | 'hangUp';
type Reply = { listening: number } | { connections: number } | { hungUp: true };

/** Starts the link in a process of its own: its timers and TLS work stay out of the client's. */
export async function startLatencyProxy(options: LinkOptions): Promise<Link> {
	const child: ChildProcess = fork(__filename, [JSON.stringify(options)], {
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
	});
	const replies: Array<(reply: Reply) => void> = [];
	child.on('message', (reply: Reply) => replies.shift()?.(reply));
	const next = () => new Promise<Reply>((resolve) => replies.push(resolve));
	const ask = async (command: Command) => {
		const reply = next();
		child.send(command);
		return await reply;
	};
	const listening = await Promise.race([
		next(),
		new Promise<never>((_, reject) =>
			child.once('exit', (code) => reject(new Error(`The latency proxy exited (${code})`))),
		),
	]);
	const port = (listening as { listening: number }).listening;
	return {
		origin: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
		connectionsSinceLastCall: async () =>
			((await ask('connections')) as { connections: number }).connections,
		hangUp: async () => void (await ask('hangUp')),
		stop: async () => {
			if (child.exitCode !== null) return;
			const exited = new Promise((resolve) => child.once('exit', resolve));
			child.kill();
			await exited;
		},
	};
}

/** Runs actions at their due time, in the order given, each no earlier than the one before. */
class DelayLine {
	private readonly queue: Array<{ due: number; action: () => void }> = [];
	private timer?: NodeJS.Timeout;
	private lastDue = 0;

	push(delayMs: number, action: () => void) {
		this.lastDue = Math.max(performance.now() + delayMs, this.lastDue);
		this.queue.push({ due: this.lastDue, action });
		if (!this.timer) this.arm();
	}

	private arm() {
		this.timer = setTimeout(() => this.flush(), Math.max(0, this.queue[0].due - performance.now()));
	}

	private flush() {
		this.timer = undefined;
		// Node's timers count whole milliseconds from the loop's cached clock: within 1 ms is due.
		const now = performance.now() + 1;
		while (this.queue.length > 0 && this.queue[0].due <= now) this.queue.shift()?.action();
		if (this.queue.length > 0) this.arm();
	}
}

/**
 * Forwards `from` to `to`, each chunk `delayMs` later, the first `firstExtraMs` more; then its
 * end, or its close (a peer gone without ending).
 */
function forward(from: net.Socket, to: net.Socket, delayMs: number, firstExtraMs: number) {
	const line = new DelayLine();
	let extra = firstExtraMs;
	const later = (action: () => void) => {
		if (delayMs + extra === 0) action();
		else line.push(delayMs + extra, action);
		extra = 0;
	};
	from.on('data', (chunk: Buffer) => later(() => to.write(chunk)));
	const end = () => later(() => to.destroyed || to.writableEnded || to.end());
	from.on('end', end);
	from.on('close', end);
}

/** Where accepted connections go: the service itself, or a TLS server in front of it. */
async function upstreamOf({
	target,
	tls: certificate,
}: LinkOptions): Promise<LinkOptions['target']> {
	if (!certificate) return target;
	const server = tls.createServer(
		{
			key: readFileSync(certificate.keyFile),
			cert: readFileSync(certificate.certFile),
			noDelay: true,
		},
		(secure) => {
			const service = net.connect({ ...target, noDelay: true });
			secure.pipe(service).pipe(secure);
			const destroyBoth = () => (secure.destroy(), service.destroy());
			secure.on('error', destroyBoth);
			service.on('error', destroyBoth);
		},
	);
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return { host: '127.0.0.1', port: (server.address() as net.AddressInfo).port };
}

async function serve(options: LinkOptions) {
	const upstreamAddress = await upstreamOf(options);
	const open = new Set<net.Socket>();
	let accepted = 0;
	const half = options.rttMs / 2;
	// Nagle's algorithm off, as HTTP servers and clients set it: it would hold small writes for ACKs.
	const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
		accepted++;
		const upstream = net.connect({ ...upstreamAddress, allowHalfOpen: true, noDelay: true });
		open.add(client);
		const destroyBoth = () => (client.destroy(), upstream.destroy());
		client.on('error', destroyBoth);
		upstream.on('error', destroyBoth);
		client.on('close', () => open.delete(client));
		forward(client, upstream, half, options.rttMs);
		forward(upstream, client, half, 0);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	process.on('message', (command: Command) => {
		if (command === 'connections') {
			process.send?.({ connections: accepted } satisfies Reply);
			accepted = 0;
		} else {
			for (const socket of open) socket.destroy();
			process.send?.({ hungUp: true } satisfies Reply);
		}
	});
	process.on('disconnect', () => process.exit(0));
	process.send?.({ listening: (server.address() as net.AddressInfo).port } satisfies Reply);
}

if (require.main === module) void serve(JSON.parse(process.argv[2]) as LinkOptions);
