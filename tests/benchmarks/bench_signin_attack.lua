-- wrk script of bench_signin_attack.py: the readers of public pages.
--
--   wrk ... -s bench_signin_attack.lua URL -- PATHS_FILE
--
-- Each thread cycles through the paths of PATHS_FILE (a path a line), the threads
-- starting apart, until the benchmark interrupts wrk (SIGINT) or its --duration
-- ends.  Answers other than 200 are counted (wrk's own count lets 3xx through).
-- done() prints one line the benchmark parses.

local threads = {}
local thread_count = 0

function setup(thread)
   thread:set("thread_number", thread_count)
   thread_count = thread_count + 1
   table.insert(threads, thread)
end

-- Globals, so that done() can read them from each thread (thread:get).
not_200 = 0
local paths = {}
local next_index = 1

function init(args)
   for line in io.lines(args[1]) do
      if line ~= "" then
         paths[#paths + 1] = line
      end
   end
   -- thread_number is set by setup() before init runs in the thread.
   next_index = (thread_number * 7) % #paths + 1
end

function request()
   local path = paths[next_index]
   next_index = next_index % #paths + 1
   return wrk.format(nil, path)
end

function response(status, headers, body)
   if status ~= 200 then
      not_200 = not_200 + 1
   end
end

function done(summary, latency, requests)
   local bad = 0
   for _, thread in ipairs(threads) do
      bad = bad + thread:get("not_200")
   end
   local errors = summary.errors
   io.write(string.format(
      "BENCH-RESULT requests=%d duration_us=%d not_200=%d connect=%d read=%d write=%d "
         .. "timeout=%d p50_us=%d p95_us=%d p99_us=%d max_us=%d\n",
      summary.requests, summary.duration, bad,
      errors.connect, errors.read, errors.write, errors.timeout,
      latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.max
   ))
end
