-- wrk script of bench_public_load.py.
--
--   wrk ... -s bench_public_load.lua URL [-- PATHS_FILE]
--
-- Without a paths file every request asks for URL's path.  With one (a path a
-- line), each thread cycles through the paths, the threads starting apart, so
-- every path is asked for in turn (1,000 players each opening their own page).
-- done() prints one line the benchmark parses, with p95 (wrk's --latency
-- table stops at p50/p75/p90/p99).

local paths = {}
local next_index = 1
local plain_request = nil
local thread_count = 0

function setup(thread)
   thread:set("thread_number", thread_count)
   thread_count = thread_count + 1
end

function init(args)
   plain_request = wrk.format()
   if args[1] ~= nil then
      for line in io.lines(args[1]) do
         if line ~= "" then
            paths[#paths + 1] = line
         end
      end
      -- thread_number is set by setup() before init runs in the thread.
      next_index = (thread_number * 7919) % #paths + 1
   end
end

function request()
   if #paths == 0 then
      return plain_request
   end
   local path = paths[next_index]
   next_index = next_index % #paths + 1
   return wrk.format(nil, path)
end

function done(summary, latency, requests)
   local errors = summary.errors
   io.write(string.format(
      "BENCH-RESULT requests=%d duration_us=%d bytes=%d connect=%d read=%d write=%d "
         .. "status=%d timeout=%d p50_us=%d p95_us=%d p99_us=%d max_us=%d\n",
      summary.requests, summary.duration, summary.bytes,
      errors.connect, errors.read, errors.write, errors.status, errors.timeout,
      latency:percentile(50), latency:percentile(95), latency:percentile(99), latency.max
   ))
end
