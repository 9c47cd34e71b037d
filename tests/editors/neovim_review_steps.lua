-- Code review in Neovim over plain LSP (tests/editors/test_neovim_review.py): after the
-- README's recipe, `karyi.review` publishes the findings as diagnostics, and the
-- "Dismiss" code action removes one. Records what Neovim shows in $KARYI_TEST_OUT.
local root, out_path = vim.env.KARYI_TEST_ROOT, vim.env.KARYI_TEST_OUT
local WAIT = 180000
local out = {}
local steps

local function wait(what, cond)
  local deadline = vim.uv.now() + WAIT
  while not cond() do
    if vim.uv.now() > deadline then
      error("timed out waiting for " .. what .. "\n" .. vim.fn.execute("messages"))
    end
    vim.defer_fn(function() assert(coroutine.resume(steps)) end, 20)
    coroutine.yield()
  end
end

local pick, offered = nil, {}
vim.ui.select = function(items, opts, on_choice)
  if opts.kind == "codeaction" then
    offered = vim.tbl_map(function(item) return item.action.title end, items)
    for i, item in ipairs(items) do
      if item.action.title == pick then return on_choice(item, i) end
    end
  end
  return on_choice(nil, nil)
end

local function step(name, fn)
  local record = {}
  out[name] = record
  local ok, err = xpcall(fn, debug.traceback, record)
  if not ok then record.error = tostring(err) end
end

local function shown(buf)
  return vim.tbl_map(function(d)
    return { line = d.lnum, severity = d.severity, source = d.source, message = d.message }
  end, vim.diagnostic.get(buf))
end

local buf, client

local function main()
step("start", function(o)
  vim.cmd.edit(root .. "/src/calc.py")
  buf = vim.api.nvim_get_current_buf()
  wait("karyi to start", function()
    client = vim.lsp.get_clients({ name = "karyi" })[1]
    return client ~= nil and client.initialized
  end)
  o.version = tostring(vim.version())
end)

step("review", function(o)
  local answer
  client:request("workspace/executeCommand", { command = "karyi.review", arguments = {} },
    function(err, result) answer = { err = err, result = result } end, buf)
  wait("the review", function() return answer ~= nil end)
  o.error = answer.err and answer.err.message or nil
  o.findings = #answer.result.findings
  wait("the findings as diagnostics", function() return #vim.diagnostic.get(buf) == 2 end)
  o.diagnostics = shown(buf)
end)

step("dismiss", function(o)
  pick = "Dismiss: ratio has no test"
  vim.api.nvim_win_set_cursor(0, { 6, 0 })
  vim.lsp.buf.code_action()
  wait("the dismissed finding gone", function() return #vim.diagnostic.get(buf) == 1 end)
  o.offered = offered
  o.diagnostics = shown(buf)
end)

out.messages = vim.fn.execute("messages")
local f = assert(io.open(out_path, "w"))
f:write(vim.json.encode(out))
f:close()
vim.cmd("qa!")
end

steps = coroutine.create(main)
assert(coroutine.resume(steps))
