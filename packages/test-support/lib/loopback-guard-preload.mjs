/**
 * `node --import @tombolbayar/test-support/loopback-guard-preload ...`: the loopback guard installed
 * before any code of a child process runs (the CLI's processes in the gateway's tests).
 */
import { installLoopbackGuard } from './loopback-guard.mjs';

installLoopbackGuard();
