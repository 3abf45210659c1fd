import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchReport, ScaleOutResult } from '../../bench/bench-report';
import { renderText, requestsText } from '../../bench/bench-report';
import type { BurstResult } from '../../bench/measure-burst';
import { perUnit } from '../../bench/measure-store-cost';
import { CountingProxy } from '../../bench/counting-proxy';
import { workerSwitchesOf } from '../../bench/worker-switches';
import { visibilityWritesOf } from '../../bench/history-size';
import { benchReport } from './bench-report-fixture';

const summary = (p50: number) => ({ count: 10, p50, p95: p50 * 2 });

function burst(toolsPerSecond: number, workerCpuMs: number, wholeCpuMs: number, switches = 0): BurstResult {
  return {
    turns: 100,
    fillMs: 1000,
    startToRequestUnderLoadMs: summary(100),
    residentBytesBefore: 0,
    residentBytesWaiting: 0,
    residentBytesPerWaitingTurn: 0,
    toolsStarted: 100,
    burstMs: 1000,
    decisionsPerSecond: toolsPerSecond,
    turnsPerSecond: toolsPerSecond / 2,
    burstDecisionToToolStartMs: summary(500),
    failedDecisions: 0,
    workerCpuMsPerTurn: workerCpuMs,
    workerCpuMsPerWholeTurn: wholeCpuMs,
    serverCpuMsPerTurn: 30,
    serverCpuMsPerWholeTurn: 60,
    workflowTaskTimeouts: { turnsRead: 100, timeouts: 1 },
    workerSwitches: switches,
  };
}

function scaleReport(results: ScaleOutResult[]): BenchReport {
  return benchReport(['scale'], { scaleOut: { channel: 'update', turns: 100, results } });
}

const lineWith = (text: string, part: string) => text.split('\n').find((line) => line.includes(part)) as string;

describe('the scale-out figure', () => {
  const results: ScaleOutResult[] = [
    ...[10, 12, 11].map((cpu) => ({ system: 'baseline' as const, workers: 1 as const, burst: burst(100, cpu, 20) })),
    ...[20, 20, 20].map((cpu) => ({ system: 'handLoop' as const, workers: 1 as const, burst: burst(50, cpu, 40) })),
    ...[24, 22, 26].map((cpu) => ({ system: 'tollgate' as const, workers: 1 as const, burst: burst(40, cpu, 50) })),
    ...[12, 12, 12].map((cpu) => ({ system: 'baseline' as const, workers: 2 as const, burst: burst(90, cpu, 24, 5) })),
    ...[25, 25, 25].map((cpu) => ({ system: 'handLoop' as const, workers: 2 as const, burst: burst(45, cpu, 50, 5) })),
    ...[30, 30, 30].map((cpu) => ({ system: 'tollgate' as const, workers: 2 as const, burst: burst(36, cpu, 60, 10) })),
  ];
  const text = renderText(scaleReport(results));

  it('gives worker CPU per decided and per whole turn with the spread of the rounds, and the ratios to both baselines', () => {
    const decided = lineWith(text, '1 worker process: worker CPU per decided turn');
    expect(decided).toContain('11.0 ms (10.0–12.0)');
    expect(decided).toContain('24.0 ms (22.0–26.0)');
    expect(decided).toContain('1.200×');
    const whole = lineWith(text, '2 worker processes: worker CPU per whole turn');
    expect(whole).toContain('60.0 ms');
    expect(whole).toContain('1.200×');
    expect(lineWith(text, '1 worker process: whole turns per worker CPU-second')).toContain('20');
    expect(lineWith(text, '1 worker process: Temporal server CPU per whole turn')).toContain('60.0 ms');
  });

  it('says how many workflow tasks moved to the other worker, per turn, and what a second worker gained', () => {
    expect(lineWith(text, '2 worker processes: workflow tasks moved to the other worker')).toContain('0.10');
    expect(lineWith(text, '1 worker process: workflow tasks moved to the other worker')).toContain('0.00');
    const gain = lineWith(text, 'tools started/s, two workers / one');
    expect(gain).toContain('0.900×');
    const cost = lineWith(text, 'worker CPU per whole turn, two workers / one');
    expect(cost).toContain('1.200×');
  });
});

describe('workerSwitchesOf', () => {
  const taskBy = (identity: string) => ({ workflowTaskStartedEventAttributes: { identity } });

  it('counts the workflow tasks started by another worker than the one before', () => {
    const events = [
      { workflowExecutionStartedEventAttributes: {} },
      taskBy('1@a'),
      { activityTaskStartedEventAttributes: { identity: '2@a' } },
      taskBy('1@a'),
      taskBy('2@a'),
      taskBy('2@a'),
      taskBy('1@a'),
    ];
    expect(workerSwitchesOf(events)).toBe(2);
    expect(workerSwitchesOf([taskBy('1@a'), taskBy('1@a')])).toBe(0);
    expect(workerSwitchesOf([])).toBe(0);
  });
});

describe('S3 requests per step and per turn', () => {
  it('divides the counts by the steps that made them and names them by method', () => {
    expect(perUnit({ PUT: 6, GET: 3 }, 3)).toEqual({ PUT: 2, GET: 1 });
    expect(requestsText({ PUT: 2, GET: 0.5 })).toBe('GET 0.50 · PUT 2.00');
    expect(requestsText({ PUT: 0 })).toBe('none');
    expect(requestsText({})).toBe('none');
  });
});

describe('visibilityWritesOf', () => {
  it('counts the start, each search-attribute upsert and the close, and nothing else', () => {
    const events = [
      { workflowExecutionStartedEventAttributes: {} },
      { workflowTaskCompletedEventAttributes: {} },
      { upsertWorkflowSearchAttributesEventAttributes: {} },
      { activityTaskScheduledEventAttributes: {} },
      { upsertWorkflowSearchAttributesEventAttributes: {} },
      { workflowExecutionCompletedEventAttributes: {} },
    ];
    expect(visibilityWritesOf(events)).toBe(4);
    expect(visibilityWritesOf(events.slice(0, 3))).toBe(2);
  });
});

describe('CountingProxy', () => {
  it('passes requests and answers through unchanged and counts them by method', async () => {
    const target = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        response.writeHead(201, { 'x-host': request.headers.host ?? '' });
        response.end(`${request.method} ${request.url} ${body}`);
      });
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const proxy = await CountingProxy.start(`http://127.0.0.1:${(target.address() as AddressInfo).port}`);
    try {
      const put = await fetch(`${proxy.endpoint}/bucket/key`, { method: 'PUT', body: 'hello' });
      expect(put.status).toBe(201);
      expect(await put.text()).toBe('PUT /bucket/key hello');
      // The Host header the client signed is the one the target sees.
      expect(put.headers.get('x-host')).toBe(new URL(proxy.endpoint).host);
      await (await fetch(`${proxy.endpoint}/bucket/key`)).text();
      await (await fetch(`${proxy.endpoint}/bucket/other`)).text();
      expect(proxy.take()).toEqual({ PUT: 1, GET: 2 });
      expect(proxy.take()).toEqual({});
    } finally {
      await proxy.stop();
      target.closeAllConnections();
      await new Promise<void>((resolve) => target.close(() => resolve()));
    }
  });
});
