import type { IPollFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { Pacer, type Pacing } from '../transport/pacing';

/** n8n-core's own default, for n8n versions whose poll context has no `getPollBudgetMs`. */
const DEFAULT_POLL_BUDGET_MS = 5 * 60 * 1000;

/** How many of the latest requests say how long the next one may take. */
const RECENT_REQUESTS = 5;

/**
 * The poll's time budget (n8n abandons a poll past `getPollBudgetMs()`), on the host's monotonic
 * clock: a poll stops on its own in time to emit what it has (docs/trigger.md, "Backlogs").
 */
export class PollBudget {
	private readonly startedAt = performance.now();

	private readonly budgetMs: number;

	private readonly recentMs: number[] = [];

	/** The poll's requests keep one pace, and wait for the service only while the poll has time for it. */
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

	/** Whether another request is expected to end well inside the budget. */
	hasRoom(): boolean {
		return this.roomToWaitMs() >= 0;
	}

	/** How long the poll can wait before its next request and still expect it to end well inside the budget. */
	private roomToWaitMs(): number {
		return this.budgetMs - this.elapsed() - 2 * Math.max(0, ...this.recentMs);
	}

	/**
	 * The timeout to give a request, so it does not linger after the poll gave up on it: a moment
	 * past the budget, so that {@link within}'s clearer error always comes first.
	 */
	requestTimeout(): number {
		return this.remaining() + 1_000;
	}

	/** Resolves with `request`, or throws once the budget is spent, whichever comes first. */
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
