/**
 * The service's clock. Every timestamp the sandbox writes (lastModifiedAt, createdAt, token
 * expiry, ...) comes from here, so tests can move time forward or freeze it to make ties.
 */
export interface ClockSetting {
	/** Milliseconds added to the machine's time. */
	offsetMs?: number;
	/** A fixed instant (date-time string) the clock stays at; null lets it run again. */
	frozenAt?: string | null;
}

export class Clock {
	private offsetMs = 0;
	private frozenAtMs: number | null = null;

	set(setting: ClockSetting): void {
		if (setting.offsetMs !== undefined) {
			if (typeof setting.offsetMs !== 'number' || !Number.isFinite(setting.offsetMs)) {
				throw new RangeError('offsetMs must be a finite number of milliseconds');
			}
			this.offsetMs = setting.offsetMs;
		}
		if (setting.frozenAt !== undefined) {
			if (setting.frozenAt === null) {
				this.frozenAtMs = null;
			} else {
				const frozenAtMs =
					typeof setting.frozenAt === 'string' ? Date.parse(setting.frozenAt) : NaN;
				if (Number.isNaN(frozenAtMs)) {
					throw new RangeError(
						'frozenAt must be a date-time string such as 2026-01-31T09:00:00.000Z, or null',
					);
				}
				this.frozenAtMs = frozenAtMs;
			}
		}
	}

	nowMs(): number {
		return this.frozenAtMs ?? Date.now() + this.offsetMs;
	}

	/** The service's time as an ISO 8601 date-time string, like every timestamp in the API. */
	now(): string {
		return new Date(this.nowMs()).toISOString();
	}

	describe(): { now: string; offsetMs: number; frozenAt: string | null } {
		return {
			now: this.now(),
			offsetMs: this.offsetMs,
			frozenAt: this.frozenAtMs === null ? null : new Date(this.frozenAtMs).toISOString(),
		};
	}
}
