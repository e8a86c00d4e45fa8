/**
 * The end-to-end suite in n8n's queue mode (part of `npm run test:e2e`): PostgreSQL, Redis, a main
 * and a worker of n8n 2.40.7, the package installed into both (test/e2e-queue/environment.ts).
 */
module.exports = require('./test/helpers/e2eSuiteConfig')('e2e-queue', 300000);
