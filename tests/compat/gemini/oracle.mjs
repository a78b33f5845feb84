// Asks @google/gemini-cli-core's own PolicyEngine about recorded calls (run by record.py, never by the
// suite). Input (stdin, JSON): {settings, mode, interactive, trusted, workspace, calls, tools, mcp_tools}.
// Output (stdout, one JSON line): the decision and matching rule of every call, the tools the engine
// removes from the model's list, and the engine's rules when `dump_rules` is set. With `load_settings`
// also, per call: whether an MCP call's tool is registered at all (`registered`: its server is in the
// merged mcpServers with a command or URL, not blocked by mcp.allowed / mcp.excluded, and the tool
// passes the server's includeTools / excludeTools: the CLI's own McpClientManager.isBlockedBySettings
// and isEnabled), and for write_file / replace the tool's own parameter check (`validation`: the
// error it refuses the call with, e.g. "Path not in workspace", or null), from a Config of the
// workspace.
const silence = () => {};
console.debug = silence;
console.log = silence;
console.info = silence;
console.warn = silence;
const core = await import(process.env.GEMINI_CORE ?? '@google/gemini-cli-core');
const { PolicyEngine, createPolicyEngineConfig, NoopSandboxManager, ALL_BUILTIN_TOOL_NAMES, coreEvents,
  isEnabled, Config, WriteFileTool, EditTool, MessageBus } = core;
// not exported by the package's index: its own module, beside it
const { McpClientManager } = await import(new URL('src/tools/mcp-client-manager.js',
  `file://${process.env.GEMINI_CORE}`).href);

const feedback = [];
coreEvents.on('user-feedback', (payload) => feedback.push(String(payload?.message ?? payload)));

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));

function ruleJson(rule) {
  if (!rule) return null;
  return {
    toolName: rule.toolName ?? null,
    mcpName: rule.mcpName ?? null,
    decision: rule.decision,
    priority: rule.priority ?? null,
    source: rule.source ?? null,
    argsPattern: rule.argsPattern ? rule.argsPattern.source : null,
    modes: rule.modes ?? null,
    interactive: rule.interactive ?? null,
    allowRedirection: rule.allowRedirection ?? null,
    toolAnnotations: rule.toolAnnotations ?? null,
    denyMessage: rule.denyMessage ?? null,
  };
}

// With `load_settings`, the settings are the Gemini CLI's own merge of its settings files (system
// defaults, ~/.gemini, the workspace's .gemini when trusted, system), mapped to the policy settings as
// the CLI's config/policy.ts maps them; the workspace's trust is the CLI's answer.
let settings = input.settings ?? {};
let trusted = input.trusted ?? true;
let settingsErrors = [];
if (input.load_settings) {
  const cli = await import(process.env.GEMINI_CLI_SETTINGS);
  process.chdir(input.workspace);
  let loaded;
  try {
    loaded = cli.loadSettings(input.workspace);
  } catch (e) {
    // the CLI does not start (a settings file that is not JSON with comments)
    process.stdout.write(JSON.stringify({ fatal: String(e?.message ?? e) }) + '\n');
    process.exit(0);
  }
  const merged = loaded.merged;
  trusted = loaded.isTrusted;
  settingsErrors = loaded.errors.map((e) => ({ path: e.path, severity: e.severity }));
  // as the CLI's config.ts builds its effective settings: a headless run also excludes ask_user
  const exclude = [...new Set([...(merged.tools?.exclude ?? []), ...(input.interactive === false ? ['ask_user'] : [])])];
  settings = {
    mcp: merged.mcp, tools: { ...merged.tools, exclude }, mcpServers: merged.mcpServers,
    policyPaths: merged.policyPaths, adminPolicyPaths: merged.adminPolicyPaths,
    disableAlwaysAllow: merged.security?.disableAlwaysAllow || merged.admin?.secureModeEnabled,
  };
}
const cfg = await createPolicyEngineConfig(settings, input.mode ?? 'default', undefined,
  input.interactive ?? true);
const engine = new PolicyEngine({
  ...cfg,
  isTrustedFolder: () => trusted,
  sandboxManager: new NoopSandboxManager({ workspace: input.workspace ?? process.cwd() }),
});

function registered(call) {
  const servers = settings.mcpServers ?? {};
  const conf = Object.prototype.hasOwnProperty.call(servers, call.server) ? servers[call.server] : undefined;
  if (!conf) return 'no such server';
  if (!conf.command && !conf.url && !conf.httpUrl) return 'no command or url';
  const cliConfig = {
    getAllowedMcpServers: () => settings.mcp?.allowed,
    getBlockedMcpServers: () => settings.mcp?.excluded,
  };
  if (McpClientManager.prototype.isBlockedBySettings.call({ cliConfig }, call.server)) return 'blocked by settings';
  const tool = call.name.slice(`mcp_${call.server}_`.length);
  return isEnabled({ name: tool }, call.server, conf) ? null : 'not enabled (includeTools / excludeTools)';
}

let tools = null;
async function validation(call) {
  if (!tools) {
    const ws = input.workspace ?? process.cwd();
    const config = new Config({ sessionId: 'oracle', targetDir: ws, cwd: ws, debugMode: false, model: 'gemini-2.5-pro' });
    await config.storage.initialize();
    const bus = new MessageBus(new PolicyEngine({}));
    tools = { write_file: new WriteFileTool(config, bus), replace: new EditTool(config, bus) };
  }
  const tool = tools[call.name];
  return tool ? tool.validateToolParams(call.args) : undefined;
}

const calls = [];
for (const call of input.calls ?? []) {
  const annotations = call.server ? { _serverName: call.server } : undefined;
  const r = await engine.check({ name: call.name, args: call.args }, call.server, annotations);
  const out = { decision: r.decision, rule: ruleJson(r.rule) };
  if (input.load_settings && call.server) out.unregistered = registered(call);
  if (input.load_settings && (call.name === 'write_file' || call.name === 'replace')) {
    out.validation = (await validation(call)) ?? null;
  }
  calls.push(out);
}

const metadata = new Map(Object.entries(input.mcp_tools ?? {}).map(([name, server]) => [name, { _serverName: server }]));
const names = [...(input.tools ?? ALL_BUILTIN_TOOL_NAMES), ...metadata.keys()];
const excluded = [...engine.getExcludedTools(metadata, new Set(names))];

const out = { calls, tools: names, excluded, feedback, trusted, settings_errors: settingsErrors };
if (input.dump_rules) out.rules = engine.getRules().map(ruleJson);
process.stdout.write(JSON.stringify(out) + '\n');
