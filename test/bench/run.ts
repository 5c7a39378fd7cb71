// `npm run bench`: runs every benchmark and prints numbers, ratios and conditions. Never asserts.
import { abuseBench } from './abuse-bench.js';
import { clusterBench } from './cluster-bench.js';
import { kubeBench } from './kube-bench.js';
import { limitsBench } from './limits-bench.js';
import { otelBench } from './otel-bench.js';
import { profileBench } from './profile-bench.js';
import { mcpProxyBench } from './mcp-proxy-bench.js';
import { restBench } from './rest-bench.js';
import { pgRetrievalBench } from './pg-retrieval-bench.js';
import { retrievalBench } from './retrieval-bench.js';
import { vectorBench } from './vector-bench.js';
import { hybridBench } from './hybrid-bench.js';
import { hybridDump } from './hybrid-dump.js';
import { hybridLatencyBench } from './hybrid-latency-bench.js';
import { answersBench } from './answers-bench.js';
import { toolSearchBench } from './tool-search-bench.js';
import { oauthBench } from './oauth-bench.js';
import { slowKeysBench } from './slow-keys-bench.js';
import { oauthStormBench } from './oauth-storm-bench.js';
import { memoryBench } from './memory-bench.js';
import { deadSourceBench } from './dead-source-bench.js';
import { workloadsBench } from './workloads-bench.js';

const only = process.argv[2];
if (only === undefined || only === 'rest') await restBench();
if (only === undefined || only === 'mcp') await mcpProxyBench();
if (only === undefined || only === 'knowledge') await retrievalBench();
if (only === undefined || only === 'knowledge' || only === 'postgres') await pgRetrievalBench();
if (only === undefined || only === 'vectors') await vectorBench();
if (only === undefined || only === 'hybrid') await hybridBench();
if (only === undefined || only === 'hybrid' || only === 'hybrid-latency') await hybridLatencyBench();
if (only === undefined || only === 'answers') await answersBench();
if (only === undefined || only === 'tools') await toolSearchBench();
if (only === undefined || only === 'oauth') await oauthBench();
if (only === undefined || only === 'oauth' || only === 'oauth-slow-keys') await slowKeysBench();
if (only === undefined || only === 'oauth' || only === 'oauth-storm') await oauthStormBench();
if (only === undefined || only === 'memory') await memoryBench();
if (only === undefined || only === 'dead-source') await deadSourceBench();
if (only === undefined || only === 'abuse') await abuseBench();
if (only === undefined || only === 'kube') await kubeBench();
if (only === undefined || only === 'limits') await limitsBench();
if (only === undefined || only === 'otel') await otelBench();
if (only === undefined || only === 'cluster') await clusterBench();
if (only === undefined || only === 'workloads') await workloadsBench();
// The profile is a diagnosis, not a measurement: only on request.
if (only === 'profile') await profileBench();
// The fusion rule's offline search data (test/bench/hybrid-dump.ts): only on request.
if (only === 'hybrid-dump') await hybridDump();
