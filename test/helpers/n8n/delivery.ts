// What a published Compliance Records Trigger delivered, counted against the service's change log
// (the sandbox's `changes()`): which changes were lost, which were delivered more than once; and
// when it took its first poll, after which every change counts. Used
// by the end-to-end tests of the trigger on each n8n line and in queue mode, and by the
// crash-recovery harness.
import { executionRun, executionsOf, waitFor, type ExecutionRun, type N8nRest } from './instance';

/** A move of a client's lastModifiedAt, as the sandbox's change log records it. */
export interface Change {
	clientId: string;
	lastModifiedAt: string;
	cause?: string;
}

/** A client the trigger emitted, in one execution. */
export interface Emission {
	clientId: string;
	lastModifiedAt: string;
	executionId: string;
}

export interface Delivery {
	changes: number;
	emissions: number;
	/** Changes no emission reflects: none of that client at or after the change. */
	lost: Change[];
	/** The same state of a client (id and lastModifiedAt) emitted more than once. */
	repeated: Array<{ clientId: string; lastModifiedAt: string; executions: string[] }>;
	/** Emissions of a state the change log does not hold (made before the window counted). */
	unexpected: Emission[];
}

/**
 * Counts delivery: a change is delivered when the trigger emitted its client in that state or a
 * later one (the trigger emits a client's current state, so two changes between polls are one
 * emission). Times are compared as instants.
 */
export function countDelivery(changes: Change[], emissions: Emission[]): Delivery {
	const at = (time: string) => Date.parse(time);
	const lost = changes.filter(
		(change) =>
			!emissions.some(
				(emission) =>
					emission.clientId === change.clientId &&
					at(emission.lastModifiedAt) >= at(change.lastModifiedAt),
			),
	);
	const byState = new Map<string, Emission[]>();
	for (const emission of emissions) {
		const key = `${emission.clientId}@${at(emission.lastModifiedAt)}`;
		byState.set(key, [...(byState.get(key) ?? []), emission]);
	}
	const repeated = [...byState.values()]
		.filter((same) => same.length > 1)
		.map((same) => ({
			clientId: same[0].clientId,
			lastModifiedAt: same[0].lastModifiedAt,
			executions: same.map((emission) => emission.executionId),
		}));
	const logged = new Set(
		changes.map((change) => `${change.clientId}@${at(change.lastModifiedAt)}`),
	);
	const unexpected = emissions.filter(
		(emission) => !logged.has(`${emission.clientId}@${at(emission.lastModifiedAt)}`),
	);
	return { changes: changes.length, emissions: emissions.length, lost, repeated, unexpected };
}

/** Every client a published trigger emitted so far: the trigger node's output in each execution. */
export async function triggerEmissions(
	rest: N8nRest,
	workflowId: string,
	triggerName: string,
): Promise<Emission[]> {
	const emissions: Emission[] = [];
	for (const execution of await executionsOf(rest, workflowId)) {
		const run: ExecutionRun = await executionRun(rest, execution.id);
		const items = run.data.resultData.runData[triggerName]?.[0]?.data?.main[0] ?? [];
		for (const { json } of items) {
			emissions.push({
				clientId: String(json.id),
				lastModifiedAt: String(json.lastModifiedAt),
				executionId: execution.id,
			});
		}
	}
	return emissions;
}

/**
 * Waits for a published trigger's first poll, which takes its starting point (n8n saves it in the
 * workflow's static data): changes made after it must be delivered.
 */
export async function untilFirstPoll(
	rest: N8nRest,
	workflowId: string,
	triggerName: string,
	what: string,
): Promise<void> {
	await waitFor(
		`the first poll of ${what}`,
		async () => {
			const saved = await rest.request<{ staticData?: Record<string, unknown> | null }>(
				'GET',
				`/workflows/${workflowId}`,
			);
			return saved.staticData?.[`node:${triggerName}`] ? true : undefined;
		},
		{ timeoutMs: 90_000, intervalMs: 500 },
	);
}
