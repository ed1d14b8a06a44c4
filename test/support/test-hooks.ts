/**
 * Asks for the product's test hooks (the onnxruntime worker's crash(): apps/server's TEST_HOOKS_ENV) in
 * this process, before any server starts. scripts/run-tests.mjs sets the same for every file it runs;
 * a test that crashes workers imports this so it also works run on its own.
 */
import { TEST_HOOKS_ENV } from '../../apps/server/src/backends/onnxruntime/instance-worker';

process.env[TEST_HOOKS_ENV] = '1';
