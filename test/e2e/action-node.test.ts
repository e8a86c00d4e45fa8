/**
 * Every operation of the Compliance Records node in the real n8n 2.40.7, the package linked as
 * `n8n-node dev` links it (see operations.ts).
 */
import { e2e, runWorkflow, sandboxRequests, signedIn, withNewApiKey } from './environment';
import { describeEveryOperation } from './operations';

describeEveryOperation({
	nodeType: 'CUSTOM.complianceRecords',
	run: async (workflow) => await runWorkflow(await signedIn(), workflow),
	newApiKeyCredential: async (name) => await withNewApiKey(await signedIn(), name),
	baseUrl: () => e2e().sandbox.baseUrl,
	sandboxRequests,
});
