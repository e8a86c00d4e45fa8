import type { IPollFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { Pacer } from '../transport/pacing';
import type { Pacing } from '../transport/retries';

/** n8n-core's own, for n8n 1.x, whose poll context has no `getPollBudgetMs`. */
const DEFAULT_POLL_BUDGET_MS = 5 * 60 * 1000;

const RECENT_REQUESTS = 5;

/** n8n abandons a poll past its budget, so a poll stops in time (docs/trigger.md, "Backlogs"). */
export class PollBudget {
	private readonly startedAt = performance.now();

	private readonly budgetMs: number;

	private readonly recentMs: number[] = [];

	/** The poll waits for the service only while it has time for it. */
	readonly pacing: Pacing = { pacer: new Pacer(), roomToWaitMs: () => this.roomToWaitMs() };

	constructor(private readonly context: IPollFunctions) {
		this.budgetMs =
			typeof context.getPollBudgetMs === 'function'
				? context.getPollBudgetMs()
				: DEFAULT_POLL_BUDGET_MS;
	}

	elapsed(): number {
		return performance.now() - this.startedAt;
	}

	private remaining(): number {
		return Math.max(0, this.budgetMs - this.elapsed());
	}

	hasRoom(): boolean {
		return this.roomToWaitMs() >= 0;
	}

	/** Twice the slowest recent request is kept free. */
	private roomToWaitMs(): number {
		return this.budgetMs - this.elapsed() - 2 * Math.max(0, ...this.recentMs);
	}

	/** Just past the budget, so that {@link within}'s clearer error comes first. */
	requestTimeout(): number {
		return this.remaining() + 1_000;
	}

	async within<T>(request: Promise<T>): Promise<T> {
		const sentAt = this.elapsed();
		const remaining = this.remaining();
		const settled = new AbortController();
		const timeout = sleep(remaining, settled.signal).then(
			() => {
				throw new NodeOperationError(
					this.context.getNode(),
					`The service did not answer within this poll's time budget (${Math.round(this.budgetMs / 1000)} s)`,
					{
						description:
							'No workflow was started for these changes and the trigger keeps its place: the next poll starts again from the same point. If the service is slow, check its status.',
					},
				);
			},
			() => undefined as never, // the request settled first
		);
		try {
			return await Promise.race([request, timeout]);
		} finally {
			settled.abort();
			this.recentMs.push(this.elapsed() - sentAt);
			if (this.recentMs.length > RECENT_REQUESTS) this.recentMs.shift();
		}
	}
}
