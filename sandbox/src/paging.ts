/**
 * Cursor pagination (spec §4.5): pages in creation order, `meta.total` always, a cursor after
 * every full page (so a full final page is followed by an empty one without a cursor).
 *
 * A cursor is standard base64 (not URL-safe) of: two marker bytes, the position where the
 * next page starts, and an HMAC binding it to the firm, the list, its sinceModifiedAt and the
 * cursors' generation (`expireAll()` starts a new one: every cursor issued before answers 400,
 * as a service's expired cursors would).
 * The marker makes every cursor start with `+/` and its length makes it end with `=`: a
 * client that forgets to URL-encode the cursor is caught on its first page, not by chance
 * (a `+` sent raw arrives as a space and is refused with 400).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

import { invalidField } from './http';

const MARKER = Buffer.from([0xfb, 0xff]);
const MAC_BYTES = 8;
const CURSOR_BYTES = MARKER.length + 4 + MAC_BYTES;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

/** What a cursor is valid for: the same list of the same firm with the same filter. */
export interface CursorScope {
	list: string;
	firmId: string;
	sinceModifiedAt?: number;
}

export interface Page<T> {
	data: T[];
	meta: { total: number; next_cursor?: string };
}

export class Cursors {
	/** Cursors of earlier generations have expired. */
	private generation = 0;

	constructor(private readonly secret: Buffer) {}

	/** Every cursor issued so far expires: using one answers 400. */
	expireAll(): void {
		this.generation++;
	}

	encode(scope: CursorScope, position: number): string {
		const bytes = Buffer.alloc(CURSOR_BYTES);
		MARKER.copy(bytes);
		bytes.writeUInt32BE(position, MARKER.length);
		this.mac(scope, position).copy(bytes, MARKER.length + 4);
		return bytes.toString('base64');
	}

	/** The position a cursor points at; 400 for anything this sandbox did not issue for `scope`. */
	decode(scope: CursorScope, cursor: string): number {
		if (cursor.includes(' ')) {
			throw invalidField(
				'cursor',
				"Invalid cursor: it contains a space, so a '+' in it was sent without URL-encoding. " +
					'Pass meta.next_cursor back unchanged and URL-encoded (+ as %2B, / as %2F, = as %3D).',
			);
		}
		const bytes = BASE64.test(cursor) ? Buffer.from(cursor, 'base64') : Buffer.alloc(0);
		if (bytes.length !== CURSOR_BYTES || !bytes.subarray(0, MARKER.length).equals(MARKER)) {
			throw invalidField(
				'cursor',
				'Invalid cursor: pass meta.next_cursor back unchanged (URL-encoded), or omit cursor for the first page.',
			);
		}
		const position = bytes.readUInt32BE(MARKER.length);
		const mac = bytes.subarray(MARKER.length + 4);
		if (!timingSafeEqual(mac, this.mac(scope, position))) {
			for (let generation = 0; generation < this.generation; generation++) {
				if (timingSafeEqual(mac, this.mac(scope, position, generation))) {
					throw invalidField(
						'cursor',
						'This cursor has expired: start the listing again without a cursor.',
					);
				}
			}
			throw invalidField(
				'cursor',
				'Invalid cursor for this request: a cursor only works on the list and with the sinceModifiedAt ' +
					'of the request that returned it. Start again without a cursor.',
			);
		}
		return position;
	}

	/**
	 * One page of `total` items starting at the cursor's position. `nextFrom(position)` gives the
	 * first matching position at or after `position`, or -1 (creation order, filter applied).
	 */
	page<T>(
		scope: CursorScope,
		request: { cursor?: string; limit: number },
		total: number,
		nextFrom: (position: number) => number,
		item: (position: number) => T,
	): Page<T> {
		let position = request.cursor === undefined ? 0 : this.decode(scope, request.cursor);
		const data: T[] = [];
		while (data.length < request.limit) {
			const found = nextFrom(position);
			if (found < 0) break;
			data.push(item(found));
			position = found + 1;
		}
		const meta: Page<T>['meta'] = { total };
		if (data.length === request.limit) meta.next_cursor = this.encode(scope, position);
		return { data, meta };
	}

	private mac(scope: CursorScope, position: number, generation = this.generation): Buffer {
		return createHmac('sha256', this.secret)
			.update(
				`${scope.list}\n${scope.firmId}\n${scope.sinceModifiedAt ?? ''}\n${position}\n${generation}`,
			)
			.digest()
			.subarray(0, MAC_BYTES);
	}
}
