import type { IDataObject } from 'n8n-workflow';

import { COMMIT_LAG_MS } from '../../../helpers/serviceTime';

// Why a stale entry costs requests, never correctness: docs/create-or-update.md.

interface ClientState {
	referenceNumber?: string;
	modifiedAt: number;
}

export class ClientsByReference {
	private readonly clients = new Map<string, ClientState>();

	private readonly holders = new Map<string, string>();

	/** When a number was last asked for: trimming keeps the latest first. */
	private readonly asked = new Map<string, number>();

	private askedCount = 0;

	characters = 0;

	/** Every change the service made before this time (its clock) is known here. */
	listedUntil = -Infinity;

	get size(): number {
		return this.clients.size;
	}

	holderOf(referenceNumber: string): string | undefined {
		return this.holders.get(referenceNumber);
	}

	/** The newest claim on a number wins: numbers are unique, so an older one was given up. */
	learn(client: IDataObject): number {
		const id = String(client.id);
		const modifiedAt = Date.parse(String(client.lastModifiedAt));
		const known = this.clients.get(id);
		if (known && known.modifiedAt > modifiedAt) return modifiedAt;
		const referenceNumber =
			typeof client.referenceNumber === 'string' ? client.referenceNumber : undefined;
		if (known?.referenceNumber !== referenceNumber) {
			if (known) this.drop(id, known);
			this.characters += id.length + (referenceNumber?.length ?? 0);
		}
		this.clients.set(id, { referenceNumber, modifiedAt });
		if (referenceNumber === undefined) return modifiedAt;
		const rival = this.holders.get(referenceNumber);
		if (rival === undefined || !((this.clients.get(rival)?.modifiedAt ?? -Infinity) > modifiedAt))
			this.holders.set(referenceNumber, id);
		return modifiedAt;
	}

	learnAnswer(
		client: IDataObject,
		referenceNumber: string,
		{ created }: { created: boolean },
	): void {
		const modifiedAt = this.learn(client);
		if (this.holders.has(referenceNumber)) this.asked.set(referenceNumber, ++this.askedCount);
		// A creation comes after every listing; it starts a watermark only for an index of it alone.
		if (created && Number.isFinite(modifiedAt)) {
			const from = modifiedAt - COMMIT_LAG_MS;
			if (Number.isFinite(this.listedUntil)) this.listedUntil = Math.min(this.listedUntil, from);
			else if (this.clients.size === 1) this.listedUntil = from;
		}
	}

	forget(id: string): void {
		const known = this.clients.get(id);
		if (known) this.drop(id, known);
		this.clients.delete(id);
	}

	private drop(id: string, { referenceNumber }: ClientState): void {
		this.characters -= id.length + (referenceNumber?.length ?? 0);
		if (referenceNumber !== undefined && this.holders.get(referenceNumber) === id) {
			this.holders.delete(referenceNumber);
			this.asked.delete(referenceNumber);
		}
	}

	/** Keeps the holders of the numbers asked for (latest first), then the clients changed last. */
	trim({ clients, characters }: { clients: number; characters: number }): void {
		const rank = (id: string, { referenceNumber, modifiedAt }: ClientState) => [
			referenceNumber !== undefined && this.holders.get(referenceNumber) === id
				? (this.asked.get(referenceNumber) ?? -Infinity)
				: -Infinity,
			modifiedAt,
		];
		const ranked = [...this.clients]
			.map(([id, state]) => ({ id, rank: rank(id, state) }))
			.sort((a, b) => b.rank[0] - a.rank[0] || b.rank[1] - a.rank[1] || 0);
		let kept = 0;
		let weight = 0;
		for (const { id } of ranked) {
			const state = this.clients.get(id) as ClientState;
			weight += id.length + (state.referenceNumber?.length ?? 0);
			if (++kept > clients || weight > characters) this.forget(id);
		}
	}
}
