// One analysis thread of an import (ingest/analysis.ts). It keeps an analyzer per category, built
// from the subject the pool sends once, and answers each task with the analyses in task order.
import { parentPort } from 'node:worker_threads';
import { type Analyzer, createAnalyzer } from '../domain/analyzer/index.ts';
import type { AnalysisTask } from './analysis.ts';

const analyzers = new Map<number, Analyzer>();

parentPort?.on('message', (task: AnalysisTask) => {
  for (const [categoryId, subject] of task.subjects) analyzers.set(categoryId, createAnalyzer(subject));
  // An exception here ends the thread; the pool fails the import with it.
  const analyses = task.answers.map((answer) => {
    if (!answer) return null;
    const analyzer = analyzers.get(answer.categoryId);
    if (!analyzer) throw new Error(`analysis thread has no analyzer for category ${answer.categoryId}`);
    return analyzer.analyze(answer.input);
  });
  parentPort?.postMessage({ id: task.id, analyses });
});
