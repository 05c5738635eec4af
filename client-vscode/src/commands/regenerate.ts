/** Regenerate the function under the cursor: with the server's provider or a VS Code language model. */
import * as vscode from 'vscode';
import { Commands } from '../constants';
import { buildPrompt, sampleVersions, type ChatModel } from '../lmSampler';
import { ServerCommands } from '../generated/commands';
import { functionArgument, isNoFunctionError, type FunctionTarget, type PromptMessage } from '../serverApi';
import { commandTarget, errorText, noFunctionMessage, UNTRUSTED_MESSAGE, withTarget, type CommandContext } from './context';
import { plainMessage } from '../safeText';

const COMPARE = 'Compare';

async function announce(ctx: CommandContext, added: number, name: string, target: FunctionTarget): Promise<void> {
  ctx.refreshStatus();
  if (added <= 0) {
    return;
  }
  const choice = await vscode.window.showInformationMessage(
    `codequorum: ${added} new version${added === 1 ? '' : 's'} of ${name}.`,
    COMPARE,
  );
  if (choice === COMPARE) {
    await vscode.commands.executeCommand(Commands.compare, target);
  }
}

/**
 * `codequorum.regenerateFunction` (and the server's "Regenerate" code lens): the server asks
 * its configured provider for new versions, showing its own progress and result. With
 * provider.kind "client" it answers with the prompt instead, and a VS Code language model
 * writes the versions.
 */
export async function regenerateWithServer(ctx: CommandContext, arg?: unknown): Promise<void> {
  // The server shows its own failures (window/showMessage); the log keeps the details.
  const failure = {
    log: 'regenerate',
    show: (err: unknown): void => {
      if (isNoFunctionError(err)) {
        noFunctionMessage();
      }
    },
  };
  const endpoint = ctx.setting<string>('provider.kind', 'openai-compatible') !== 'client';
  if (endpoint && !ctx.trusted()) {
    void vscode.window.showWarningMessage(`${UNTRUSTED_MESSAGE} (Regenerate with a VS Code Language Model works.)`);
    return;
  }
  return withTarget(ctx, arg, failure, async (api, target) => {
    if (endpoint && !(await ctx.confirmEndpoint())) {
      void vscode.window.showInformationMessage('codequorum: nothing was sent: the endpoint chosen by this workspace was not approved.');
      return;
    }
    const answer = await api.regenerate(target, undefined, undefined, { endpointConfirmed: endpoint });
    if (answer.status === 'relay' || (answer.messages && answer.stored === 0)) {
      return await regenerateWithLanguageModel(ctx, target, { messages: answer.messages, count: answer.count });
    }
    ctx.refreshStatus();
  });
}

interface ModelItem extends vscode.QuickPickItem {
  model: ChatModel;
}

/** The model to use: the only one found, or the user's pick among several. */
export async function chooseModel(ctx: CommandContext): Promise<ChatModel | undefined> {
  const vendor = ctx.setting('languageModel.vendor', 'copilot').trim();
  const family = ctx.setting('languageModel.family', '').trim();
  const selector: vscode.LanguageModelChatSelector = {};
  if (vendor) {
    selector.vendor = vendor;
  }
  if (family) {
    selector.family = family;
  }
  const models = (await vscode.lm.selectChatModels(selector)) as unknown as ChatModel[];
  if (models.length === 0) {
    void vscode.window.showWarningMessage(
      `codequorum: no VS Code language model is available${vendor ? ` from "${vendor}"` : ''}. Install and sign in to a model provider (for example GitHub Copilot Chat), or change codequorum.languageModel.vendor.`,
    );
    return undefined;
  }
  if (models.length === 1) {
    return models[0];
  }
  const items: ModelItem[] = models.map((model) => ({
    label: model.name,
    description: `${model.vendor} · ${model.family}`,
    model,
  }));
  const picked = await vscode.window.showQuickPick(items, { placeHolder: 'Language model for the new versions' });
  return picked?.model;
}

function toChatMessage(m: PromptMessage): vscode.LanguageModelChatMessage {
  // The chat API has no system role: a system instruction goes first as a user message.
  return m.role === 'assistant'
    ? vscode.LanguageModelChatMessage.Assistant(m.content)
    : vscode.LanguageModelChatMessage.User(m.content);
}

/**
 * `codequorum.regenerateWithLanguageModel`: N requests to a VS Code language model, the
 * versions relayed to the server with codequorum.addVersions.
 */
export async function regenerateWithLanguageModel(
  ctx: CommandContext,
  arg?: unknown,
  fromServer?: { messages?: PromptMessage[]; count?: number },
): Promise<void> {
  const resolved = commandTarget(ctx, arg);
  if (!resolved) {
    return;
  }
  const { api, target } = resolved;
  let report;
  try {
    report = await api.analyze(target);
  } catch (err) {
    ctx.log(`analyze failed: ${errorText(err)}`);
    void vscode.window.showErrorMessage(`codequorum: ${errorText(err)}`);
    return;
  }
  if (!report || (!report.range && !fromServer?.messages)) {
    return noFunctionMessage();
  }
  const named: FunctionTarget = { ...target, qualifiedName: report.qualifiedName || target.qualifiedName };
  const name = plainMessage(report.qualifiedName || 'the function', 200);
  const model = await chooseModel(ctx);
  if (!model) {
    return;
  }
  const messages =
    fromServer?.messages ??
    buildPrompt({
      language: report.language || ctx.languageOf(target.uri) || 'python',
      qualifiedName: report.qualifiedName,
      code: await ctx.documentText(target.uri, report.range!),
    });
  const count = Math.max(1, Math.min(50, Math.floor(fromServer?.count ?? (ctx.setting<number | null>('provider.samples', null) ?? ctx.setting('provider.versions', 5)))));
  const result = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: `codequorum: ${count} versions of ${name} from ${model.name}`,
      cancellable: true,
    },
    (progress, token) =>
      sampleVersions(model, messages, {
        count,
        functionName: report.qualifiedName,
        token,
        toChatMessage,
        justification: `codequorum compares several versions of ${name} to tell how stable it is.`,
        onRequest: (i) => progress.report({ message: `request ${i + 1} of ${count}`, increment: i === 0 ? 0 : 100 / count }),
      }),
  );
  for (const p of result.problems) {
    ctx.log(`language model: ${p}`);
  }
  if (result.samples.length === 0) {
    if (!result.cancelled) {
      const why = result.problems[0] ?? 'no answer held code';
      void vscode.window.showWarningMessage(`codequorum: no new version of ${name}: ${plainMessage(why)}`);
    }
    return;
  }
  try {
    const { added } = await api.call(ServerCommands.addVersions, functionArgument(named, { versions: result.samples }));
    await announce(ctx, added, name, named);
  } catch (err) {
    ctx.log(`addSamples failed: ${errorText(err)}`);
    void vscode.window.showErrorMessage(`codequorum: could not store the new versions: ${errorText(err)}`);
  }
}
