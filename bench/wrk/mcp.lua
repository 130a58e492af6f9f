-- wrk script: an MCP client per connection (bench/README.md, "Lean client").
--   wrk -t N -c N -d 8s -s mcp.lua URL -- <legacy|modern> <method> [tool] [arguments JSON]
-- Run with as many threads as connections: wrk's script state is per thread, so one thread per
-- connection is what gives every connection its own MCP session.
--   legacy: initialize, notifications/initialized, then <method> in that session (Mcp-Session-Id)
--   modern (2026-07-28): no session; every request carries the _meta fields and the MCP headers
-- done() prints one JSON line: requests, rps, latency percentiles (ms) and every kind of error.

local mode, method, tool, arguments
local stage = "call"
local sessionId, protocolVersion = nil, "2025-06-18"
local nextId = 1
local host, path

rpc_errors = 0   -- answers with a JSON-RPC error or an isError result (read by done through thread:get)
http_errors = 0
failure = ""

local threads = {}

function setup(thread)
   table.insert(threads, thread)
end

local function headerLines()
   local h = "Host: " .. host .. "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
   if mode == "modern" then
      h = h .. "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: " .. method .. "\r\n"
      if method == "tools/call" then
         h = h .. "Mcp-Name: " .. tool .. "\r\n"
      end
   elseif sessionId then
      h = h .. "Mcp-Session-Id: " .. sessionId .. "\r\nMCP-Protocol-Version: " .. protocolVersion .. "\r\n"
   end
   return h
end

local callHead, callParams

local function post(head, body)
   return "POST " .. path .. " HTTP/1.1\r\n" .. head .. "Content-Length: " .. #body .. "\r\n\r\n" .. body
end

local function prepareCalls()
   callHead = headerLines()
   local params = {}
   if method == "tools/call" then
      table.insert(params, '"name":"' .. tool .. '","arguments":' .. arguments)
   end
   if mode == "modern" then
      table.insert(params, '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",' ..
                   '"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},' ..
                   '"io.modelcontextprotocol/clientCapabilities":{}}')
   end
   callParams = table.concat(params, ",")
end

function init(args)
   mode = args[1] or "legacy"
   method = args[2] or "tools/list"
   tool = args[3] or ""
   arguments = args[4] or "{}"
   host = wrk.host .. ":" .. wrk.port
   path = wrk.path
   if mode == "legacy" then
      stage = "initialize"
   end
   prepareCalls()
end

-- The stage moves on answers only: wrk calls request() once more than it sends (to check the script).
function request()
   if stage == "initialize" then
      return post(headerLines(), '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",' ..
                  '"capabilities":{},"clientInfo":{"name":"bench-wrk","version":"1"}}}')
   elseif stage == "initialized" then
      return post(callHead, '{"jsonrpc":"2.0","method":"notifications/initialized"}')
   end
   local id = nextId
   nextId = nextId + 1
   return post(callHead, '{"jsonrpc":"2.0","id":' .. id .. ',"method":"' .. method .. '","params":{' .. callParams .. '}}')
end

local function fail(text)
   if failure == "" then
      failure = text
   end
end

function response(status, headers, body)
   if status < 200 or status > 299 then
      http_errors = http_errors + 1
      fail("HTTP " .. status .. ": " .. string.sub(body or "", 1, 200))
      return
   end
   if stage == "initialize" then
      for name, value in pairs(headers) do
         if string.lower(name) == "mcp-session-id" then
            sessionId = value
         end
      end
      local pv = string.match(body, '"protocolVersion"%s*:%s*"([^"]+)"')
      if pv then
         protocolVersion = pv
      end
      if not sessionId then
         fail("initialize answered without an Mcp-Session-Id")
      end
      prepareCalls()
      stage = "initialized"
      return
   elseif stage == "initialized" then
      stage = "call"
      return
   end
   -- An error answer is short; a long body (tools/list) is not scanned, so the client stays cheap.
   if #body <= 4096 and (string.find(body, '"error":{', 1, true) or string.find(body, '"isError":true', 1, true)) then
      rpc_errors = rpc_errors + 1
      fail("error answer: " .. string.sub(body, 1, 200))
   end
end

function done(summary, latency, requests)
   local rpc, http, why = 0, 0, ""
   for _, t in ipairs(threads) do
      rpc = rpc + t:get("rpc_errors")
      http = http + t:get("http_errors")
      local f = t:get("failure")
      if why == "" and f and f ~= "" then
         why = f
      end
   end
   local e = summary.errors
   local seconds = summary.duration / 1e6
   local function ms(p)
      return string.format("%.4f", latency:percentile(p) / 1000)
   end
   why = string.gsub(why, '[%c"\\]', " ")
   io.write(string.format('{"requests":%d,"seconds":%.3f,"rps":%.1f,"p50_ms":%s,"p90_ms":%s,"p99_ms":%s,' ..
                          '"max_ms":%.4f,"mean_ms":%.4f,"http_errors":%d,"rpc_errors":%d,"socket_errors":%d,' ..
                          '"timeouts":%d,"failure":"%s"}\n',
                          summary.requests, seconds, summary.requests / seconds, ms(50), ms(90), ms(99),
                          latency.max / 1000, latency.mean / 1000, http, rpc,
                          e.connect + e.read + e.write, e.timeout, why))
end
