// Before a run: every tool a case calls exists on the target it runs against (after the variant's
// rename). A dataset naming a tool the service does not have is a broken dataset, not a failing case,
// and is refused with the file, the line and the field, like a schema error. A case that expects
// TOOL_NOT_FOUND asks for exactly that and is left alone.
import { datasetError, type Dataset } from './dataset.js';
import { plannedCalls } from './run-case.js';
import { selectCases, type EvalTarget } from './runner.js';
import { jsonOf } from './transport.js';

/** The names of the tools the target's admin can call. */
async function toolNames(target: EvalTarget): Promise<Set<string>> {
  const res = await target.transport.send({ method: 'GET', url: '/v1/tools', token: target.adminToken });
  const body = jsonOf(res) as { tools?: { name?: unknown }[] } | undefined;
  if (res.status !== 200 || !Array.isArray(body?.tools)) {
    throw new Error(`GET /v1/tools answered ${res.status}: cannot check the datasets' tool names`);
  }
  return new Set(body.tools.map((tool) => String(tool.name)));
}

/** Throws the dataset error of the first call to a tool some target does not have. */
export async function checkDatasetTools(
  datasets: readonly Dataset[],
  targets: readonly EvalTarget[],
  onlyTools?: readonly string[],
): Promise<void> {
  const selected = new Set(selectCases(datasets, onlyTools).map((c) => c.evalCase));
  const namesOf = new Map<EvalTarget['transport'], Promise<Set<string>>>();
  for (const target of targets) {
    if (!namesOf.has(target.transport)) namesOf.set(target.transport, toolNames(target));
    const names = await namesOf.get(target.transport)!;
    for (const dataset of datasets) {
      dataset.cases.forEach((evalCase, caseIndex) => {
        if (!selected.has(evalCase)) return;
        plannedCalls(evalCase).forEach((call, callIndex) => {
          const tool = target.variant.rename?.[call.tool] ?? call.tool;
          if (names.has(tool) || call.expect.code === 'TOOL_NOT_FOUND') return;
          const field = evalCase.calls ? `/calls/${callIndex}/tool` : '/tool';
          const renamed =
            tool === call.tool ? '' : ` (renamed from "${call.tool}" by variant ${target.variant.name})`;
          throw datasetError(
            dataset.source?.label ?? dataset.name,
            `no tool "${tool}"${renamed} on the target`,
            {
              line: dataset.source?.lineOf(caseIndex, field),
              label: evalCase.name,
              field,
            },
          );
        });
      });
    }
  }
}
