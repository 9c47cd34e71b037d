-- A user's session in Neovim with the README's recipe (tests/editors/test_neovim.py).
-- Runs after the recipe's init.lua; records what Neovim shows in $KARYI_TEST_OUT (JSON).
-- The steps run in a coroutine that gives Neovim's main loop its turn while it waits
-- (that is where the editor reloads files and runs postponed :checktime), polling a
-- state with a deadline: nothing waits a fixed time.
local root, out_path = vim.env.KARYI_TEST_ROOT, vim.env.KARYI_TEST_OUT
local WAIT = 180000
local out = {}
local steps

local function idle()
  vim.schedule(function() assert(coroutine.resume(steps)) end)
  coroutine.yield()
end

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
local function messages() return vim.fn.execute("messages") end
local function said(text) return messages():find(text, 1, true) ~= nil end
local function text_of(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") .. "\n"
end
local function disk(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

-- The user's answers. Neovim asks through vim.ui.select (picker plugins replace it the
-- same way): permission questions are answered with their first action, "Allow", or
-- held open while `hold` is set; code action menus pick the action titled `pick`.
local prompts, hold, pick, offered = {}, nil, nil, {}
vim.ui.select = function(items, opts, on_choice)
  if opts.kind == "codeaction" then
    offered = vim.tbl_map(function(item) return item.action.title end, items)
    for i, item in ipairs(items) do
      if item.action.title == pick then return on_choice(item, i) end
    end
    return on_choice(nil, nil)
  end
  table.insert(prompts, { prompt = opts.prompt, items = vim.tbl_map(opts.format_item, items) })
  if hold then
    hold.answer = on_choice
    return
  end
  on_choice(items[1], 1)
end

local begins = {}
vim.api.nvim_create_autocmd("LspProgress", {
  pattern = "begin",
  callback = function(ev) table.insert(begins, ev.data.params.value.message or "") end,
})

local function step(name, fn)
  local record = {}
  out[name] = record
  local ok, err = xpcall(fn, debug.traceback, record)
  if not ok then record.error = tostring(err) end
end

local calc_path, bad_path = root .. "/calc.py", root .. "/bad.py"
local calc

local function main()
step("start", function(o)
  vim.cmd.edit(calc_path)
  calc = vim.api.nvim_get_current_buf()
  wait("karyi to start", function()
    local client = vim.lsp.get_clients({ name = "karyi" })[1]
    return client ~= nil and client.initialized
  end)
  o.version = tostring(vim.version())
end)

step("chat", function(o)
  vim.cmd("Karyi bump both numbers")
  wait("the answer", function() return said("Bumped both.") end)
  o.prompts = vim.deepcopy(prompts)
  o.buffer, o.disk, o.modified = text_of(calc), disk(calc_path), vim.bo[calc].modified
  vim.v.warningmsg = ""
  vim.cmd("checktime")
  idle() -- a :checktime not typed by the user runs when the main loop has its turn
  o.warning_after_checktime = vim.v.warningmsg
  o.modified_after_checktime = vim.bo[calc].modified
  vim.cmd("write")
  o.warning_after_write = vim.v.warningmsg
  o.disk_after_write = disk(calc_path)
end)

step("continue", function(o)
  vim.cmd("Karyi what did you change?")
  wait("the second answer", function() return said("I changed calc.py.") end)
  o.begins = vim.deepcopy(begins)
end)

step("cancel", function(o)
  hold = {}
  vim.cmd("Karyi bump them again")
  wait("the permission question", function() return hold.answer ~= nil end)
  vim.cmd("KaryiCancel")
  wait("the cancelled turn", function() return said("Karyi stopped: cancelled") end)
  local answer = hold.answer
  hold = nil
  answer(nil, nil) -- the user closes the question that is no longer asked
  o.messages = messages()
  o.disk = disk(calc_path)
end)

step("fix", function(o)
  vim.cmd.edit(bad_path)
  local bad = vim.api.nvim_get_current_buf()
  wait("Karyi's diagnostics", function() return #vim.diagnostic.get(bad) > 0 end)
  o.diagnostics = vim.tbl_map(function(d) return d.message end, vim.diagnostic.get(bad))
  pick = "Fix with Karyi"
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.lsp.buf.code_action()
  wait("the fix", function() return said("Marked the import.") end)
  o.offered = offered
  o.buffer, o.disk, o.modified = text_of(bad), disk(bad_path), vim.bo[bad].modified
end)

step("selection", function(o)
  vim.cmd.buffer(calc)
  pick = "Ask Karyi to explain this"
  vim.lsp.buf.code_action({ range = { start = { 1, 0 }, ["end"] = { 2, 14 } } })
  wait("the explanation", function() return said("It returns 10.") end)
  o.offered = offered
end)

step("unsaved", function(o)
  vim.cmd.buffer(calc)
  vim.api.nvim_buf_set_lines(calc, 0, 0, false, { "# mine" })
  o.disk_before = disk(calc_path)
  vim.cmd("Karyi make two return 21")
  wait("the edit of the unsaved buffer", function() return said("Done.") end)
  o.buffer, o.disk, o.modified = text_of(calc), disk(calc_path), vim.bo[calc].modified
  vim.v.warningmsg = ""
  vim.cmd("write")
  o.warning_after_write = vim.v.warningmsg
  o.disk_after_write = disk(calc_path)
end)

out.messages = messages()
local f = assert(io.open(out_path, "w"))
f:write(vim.json.encode(out))
f:close()
vim.cmd("qa!")
end

steps = coroutine.create(main)
assert(coroutine.resume(steps))
