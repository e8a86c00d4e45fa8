import { createHash, createHmac } from 'crypto';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteSingleFunctions,
} from 'n8n-workflow';

import { COMMIT_LAG_MS } from '../../../helpers/serviceTime';
import { authenticationOf, credentialTypeFor } from '../../../transport/request';

/*
 * Which client holds which reference number, as Create or Update learned it, and the part of it
 * kept in the node's static data between production executions: keyed hashes and client IDs,
 * authenticated as a whole. Format, bound, key and why the hints stay safe: docs/create-or-update.md.
 */

/** The `lastModifiedAt` (epoch ms) of a client's state, and the key of the reference it held then. */
interface ClientState {
	key?: string;
	modifiedAt: number;
}

export class ClientsByReference {
	private readonly clients = new Map<string, ClientState>();

	private readonly holders = new Map<string, string>();

	/** When a reference was last asked for: this execution's items above the saved order (negative). */
	private readonly asked = new Map<string, number>();

	private askedCount = 0;

	/** Every change the service made before this time (epoch ms, its clock) is known here. */
	listedUntil = -Infinity;

	/** `keyOf` turns a reference number into what the index stores: the number itself, or its keyed hash. */
	constructor(readonly keyOf: (referenceNumber: string) => string) {}

	holderOf(referenceNumber: string): string | undefined {
		return this.holders.get(this.keyOf(referenceNumber));
	}

	/**
	 * A client as an answer showed it: its newest state wins, and so does the newest claim on a
	 * reference (numbers are unique, so an older claim was given up since). Its `lastModifiedAt`.
	 */
	learn(client: IDataObject): number {
		const id = String(client.id);
		const modifiedAt = Date.parse(String(client.lastModifiedAt));
		const known = this.clients.get(id);
		if (known && known.modifiedAt > modifiedAt) return modifiedAt;
		if (known?.key !== undefined && this.holders.get(known.key) === id)
			this.holders.delete(known.key);
		const key =
			typeof client.referenceNumber === 'string' ? this.keyOf(client.referenceNumber) : undefined;
		this.clients.set(id, { key, modifiedAt });
		if (key === undefined) return modifiedAt;
		const rival = this.holders.get(key);
		if (
			rival === undefined ||
			rival === id ||
			!((this.clients.get(rival)?.modifiedAt ?? -Infinity) > modifiedAt)
		) {
			this.holders.set(key, id);
		}
		return modifiedAt;
	}

	/** The client an item created or updated with `referenceNumber`: kept first in the saved index. */
	learnAnswer(
		client: IDataObject,
		referenceNumber: string,
		{ created }: { created: boolean },
	): void {
		const modifiedAt = this.learn(client);
		this.asked.set(this.keyOf(referenceNumber), ++this.askedCount);
		// A creation is a change after every listing: its time bounds what a later change can carry.
		if (created && Number.isFinite(modifiedAt)) {
			const from = modifiedAt - COMMIT_LAG_MS;
			this.listedUntil = Number.isFinite(this.listedUntil)
				? Math.min(this.listedUntil, from)
				: from;
		}
	}

	/** A client the service no longer has. */
	forget(id: string): void {
		const key = this.clients.get(id)?.key;
		if (key !== undefined && this.holders.get(key) === id) this.holders.delete(key);
		this.clients.delete(id);
	}

	/** Entries as saved, in the order they are kept: references asked for (latest first), then the latest changed. */
	ranked(): Array<[key: string, clientId: string]> {
		const rank = ([key, id]: [string, string]) => [
			this.asked.get(key) ?? -Infinity,
			this.clients.get(id)?.modifiedAt ?? -Infinity,
		];
		return [...this.holders]
			.map((entry) => ({ entry, rank: rank(entry) }))
			.sort((a, b) => b.rank[0] - a.rank[0] || b.rank[1] - a.rank[1] || 0)
			.map(({ entry }) => entry);
	}

	/** Saved entries, most important first: their states older than anything an answer shows. */
	restore(entries: Array<[key: string, clientId: string]>, listedUntil: number): void {
		entries.forEach(([key, id], position) => {
			this.clients.set(id, { key, modifiedAt: -Infinity });
			this.holders.set(key, id);
			this.asked.set(key, -1 - position);
		});
		this.listedUntil = listedUntil;
	}
}

/** Where the index lives in the node's static data, and the version of its format. */
const STATIC_DATA_KEY = 'referenceIndex';
const FORMAT = 1;

/** The saved entries' size at most (characters, all ASCII): the index stays under 100 KB on a firm of any size. */
const MAX_SAVED_CHARS = 90_000;

/**
 * How far the watermark moves before the index is saved for it alone: a later one only lists
 * fewer changes, and n8n rewrites the workflow's whole static data at each save.
 */
const RESAVE_AFTER_MS = 10 * 60_000;

/** A reference's key: 72 bits of its keyed hash, 12 base64url characters. */
const KEY_LENGTH = 12;

interface SavedIndex {
	format: number;
	listedUntil: number;
	/** `<key><URL-encoded client ID>`, most important first. */
	clients: string[];
	/** The keyed hash of the three above: anything else (edited, corrupt, another credential's) is ignored. */
	mac: string;
}

/** Claims that change with every token, left out so that a renewed token keeps the index. */
const PER_TOKEN_CLAIMS = new Set(['exp', 'iat', 'nbf', 'jti', 'auth_time', 'at_hash', 'nonce']);

/** The identity an OAuth2 access token carries (issuer, subject, firm...), if it is a JWT with an issuer and a subject. */
function identityInToken(token: unknown): string | undefined {
	if (typeof token !== 'string') return undefined;
	let claims: unknown;
	try {
		claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
	} catch {
		return undefined;
	}
	if (typeof claims !== 'object' || claims === null) return undefined;
	const { iss, sub } = claims as IDataObject;
	if (typeof iss !== 'string' || typeof sub !== 'string') return undefined;
	const stable = Object.entries(claims).filter(([name]) => !PER_TOKEN_CLAIMS.has(name));
	return JSON.stringify(stable.sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * The secret the index is keyed with, never saved: the API key, or an OAuth2 token's identity
 * (no secret of an OAuth2 credential outlives its tokens); with the base URL and the credential.
 */
function secretOf(
	context: IExecuteSingleFunctions,
	type: string,
	credentials: ICredentialDataDecryptedObject,
) {
	const token = (credentials.oauthTokenData as IDataObject | undefined)?.access_token;
	const material = type === 'complianceRecordsApi' ? credentials.apiKey : identityInToken(token);
	if (typeof material !== 'string' || material === '') return undefined;
	const credential = context.getNode().credentials?.[type]?.id ?? '';
	return createHmac('sha256', material)
		.update(`compliance-records reference index\n${String(credentials.baseUrl)}\n${credential}`)
		.digest();
}

/** The index the node keeps between production executions; none when the credential offers no key. */
export class SavedReferences {
	readonly index: ClientsByReference;

	/** What the static data holds now, when it is an index this credential wrote. */
	private saved?: { clients: Set<string>; listedUntil: number };

	private constructor(
		private readonly secret: Buffer,
		private readonly staticData: IDataObject,
	) {
		// The secret first, then the number, truncated (no length extension): a keyed hash ten times cheaper than an HMAC each.
		const keyed = createHash('sha256').update(secret).update('reference\n');
		this.index = new ClientsByReference((referenceNumber) =>
			keyed.copy().update(referenceNumber).digest('base64url').slice(0, KEY_LENGTH),
		);
		this.restore(staticData[STATIC_DATA_KEY]);
	}

	static async of(context: IExecuteSingleFunctions): Promise<SavedReferences | undefined> {
		const type = credentialTypeFor(authenticationOf(context));
		const secret = secretOf(context, type, await context.getCredentials(type));
		return secret && new SavedReferences(secret, context.getWorkflowStaticData('node'));
	}

	private macOf({ format, listedUntil, clients }: Omit<SavedIndex, 'mac'>): string {
		return createHmac('sha256', this.secret)
			.update(`index\n${JSON.stringify([format, listedUntil, clients])}`)
			.digest('base64url');
	}

	/** Whatever is not an index this credential wrote, whole and unchanged, is ignored. */
	private restore(saved: unknown): void {
		const { format, listedUntil, clients, mac } = (saved ?? {}) as Partial<SavedIndex>;
		if (format !== FORMAT || typeof listedUntil !== 'number' || !Number.isFinite(listedUntil))
			return;
		if (
			!Array.isArray(clients) ||
			!clients.every((entry) => typeof entry === 'string' && entry.length > KEY_LENGTH)
		)
			return;
		if (mac !== this.macOf({ format, listedUntil, clients })) return;
		this.saved = { clients: new Set(clients), listedUntil };
		this.index.restore(
			clients.map((entry) => [
				entry.slice(0, KEY_LENGTH),
				decodeURIComponent(entry.slice(KEY_LENGTH)),
			]),
			listedUntil,
		);
	}

	/** Writes the index back, its most important entries up to {@link MAX_SAVED_CHARS}, when its entries changed or its watermark moved on. */
	save(): void {
		const { listedUntil } = this.index;
		const clients: string[] = [];
		let size = 0;
		for (const [key, id] of this.index.ranked()) {
			const entry = `${key}${encodeURIComponent(id)}`;
			size += entry.length + 3; // its quotes and comma
			if (size > MAX_SAVED_CHARS) break;
			clients.push(entry);
		}
		if (clients.length === 0 || !Number.isFinite(listedUntil)) {
			if (this.staticData[STATIC_DATA_KEY] !== undefined) delete this.staticData[STATIC_DATA_KEY];
			return;
		}
		const { saved } = this;
		const sameEntries =
			saved?.clients.size === clients.length && clients.every((entry) => saved.clients.has(entry));
		if (sameEntries && listedUntil - saved.listedUntil < RESAVE_AFTER_MS) return;
		this.staticData[STATIC_DATA_KEY] = {
			format: FORMAT,
			listedUntil,
			clients,
			mac: this.macOf({ format: FORMAT, listedUntil, clients }),
		};
		this.saved = { clients: new Set(clients), listedUntil };
	}
}
