--[[
Headroom admission for Slurm (JobSubmitPlugins=lua; this file sits next to slurm.conf).

Every submission asks Headroom, through headroom_slurm.py (Lua 5.1 in Debian's slurmctld has no
HTTP library; lua-socket is not a dependency of slurmctld, and a helper process can be tested on
its own). The helper is run under timeout(1), so a slow or dead Headroom costs a submission at
most timeout_seconds + 2 s and never hangs sbatch; what happens then is `on_error`.

  placed/started  pin the job to Headroom's node (req_nodes), set its memory to the job type's;
                  a multi-node job (a Headroom gang, one member per node) is pinned to every
                  member's node, and to exactly that many nodes
  queued          hold it (priority 0); `headroom_slurm.py release` releases it when started;
                  its Comment says why it waits (waiting_for_quota: whose quota, short of what)
  rejected        refuse the submission with Headroom's reason code and numbers (quota_exceeded:
                  whose quota, which limit, short of what)
  refused         Headroom cannot take the request (no declared job type fits, no account on a
                  cluster with quotas, a multi-node job on a queued cluster): refuse, say why
  error           Headroom unreachable/misconfigured: on_error = reject (default) or accept

The job's Slurm account (job_desc.account; nil when the user names none) is passed on: it is the
job's tenant where the Headroom cluster declares tenants.
The Headroom job id is recorded in AdminComment ("headroom:<id>", or "headroom:<id>.[0-3]" for
the members of a 4-node job); job_completion.sh reads it back. See docs/integrations/slurm.md.
--]]

local CONF = os.getenv("HEADROOM_SLURM_CONF") or "/etc/slurm/headroom.conf"
local NO_VAL = 4294967294
local NO_VAL16 = 65534
local PREFIX = "headroom:"

-- Read on every submission: a changed file takes effect without `scontrol reconfigure`.
local function read_conf()
  local f = io.open(CONF, "r")
  if not f then return nil end
  local conf = {}
  for line in f:lines() do
    line = line:gsub("#.*", "")
    local key, value = line:match("^%s*([^=%s]+)%s*=%s*(.-)%s*$")
    if key then conf[key] = value end
  end
  f:close()
  return conf
end

local function set(v, unset)
  return v ~= nil and v < unset
end

local function shell_quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

-- What the job asks of one node, in Slurm's own units (CPUs, MB, GRES string), and of how many
-- nodes. num_tasks and min_cpus are the whole job's (sbatch -N 2 -c 4 sends min_cpus=8), so
-- each node's share is their quotient, rounded up; memory and GRES are per node already.
local function request_of(job_desc)
  local nodes = set(job_desc.min_nodes, NO_VAL) and job_desc.min_nodes or 1
  local tasks = 1
  if set(job_desc.ntasks_per_node, NO_VAL16) then
    tasks = job_desc.ntasks_per_node
  elseif set(job_desc.num_tasks, NO_VAL) then
    tasks = math.ceil(job_desc.num_tasks / nodes)
  end
  local per_task = set(job_desc.cpus_per_task, NO_VAL16) and job_desc.cpus_per_task or 1
  local cpus = tasks * per_task
  if set(job_desc.min_cpus, NO_VAL) and math.ceil(job_desc.min_cpus / nodes) > cpus then
    cpus = math.ceil(job_desc.min_cpus / nodes)
  end
  local mem = 0
  if set(job_desc.min_mem_per_node, NO_VAL) then
    mem = job_desc.min_mem_per_node
  elseif set(job_desc.min_mem_per_cpu, NO_VAL) then
    mem = job_desc.min_mem_per_cpu * cpus
  end
  return cpus, mem, job_desc.tres_per_node or "", nodes
end

local function ask_headroom(conf, job_desc)
  local cpus, mem, gres, nodes = request_of(job_desc)
  local helper = conf.helper or "/usr/local/libexec/headroom-slurm"
  local limit = math.ceil(tonumber(conf.timeout_seconds) or 5) + 2
  local account = ""
  if job_desc.account ~= nil and job_desc.account ~= "" then
    account = " --account " .. shell_quote(job_desc.account)
  end
  local cmd = string.format("timeout -k 1 %d %s --config %s submit --cpus %d --mem-mb %d"
                              .. " --nodes %d --gres %s%s 2>&1",
                            limit, shell_quote(helper), shell_quote(CONF), cpus, mem, nodes,
                            shell_quote(gres), account)
  local pipe = io.popen(cmd)
  local out = pipe:read("*a")
  pipe:close()
  local answer = {}
  for key, value in out:gmatch("([%w_]+)=([^\n]*)") do answer[key] = value end
  if not answer.decision then
    answer.decision = "error"
    answer.message = "the Headroom helper gave no decision: " .. out:sub(1, 300)
  end
  return answer
end

function slurm_job_submit(job_desc, part_list, submit_uid)
  local conf = read_conf()
  if not conf then
    slurm.log_user("headroom: cannot read %s; refusing (ask your Slurm administrator)", CONF)
    slurm.log_error("headroom: cannot read %s", CONF)
    return slurm.ERROR
  end
  local answer = ask_headroom(conf, job_desc)
  local d = answer.decision
  if d == "placed" or d == "started" or d == "queued" then
    job_desc.admin_comment = PREFIX .. answer.job
    if answer.mem_mb then job_desc.min_mem_per_node = tonumber(answer.mem_mb) end
    if d == "queued" then
      job_desc.priority = 0
      job_desc.comment = string.format("headroom: %s %s", answer.type, answer.message)
    else
      -- A comma list is a Slurm hostlist. For a multi-node job the nodes are distinct (the
      -- helper refuses otherwise) and the job gets exactly them: max_nodes too, so -N 2-4
      -- runs on the 2 Headroom booked.
      job_desc.req_nodes = answer.node
      local what = answer.type
      if answer.nodes then
        job_desc.min_nodes = tonumber(answer.nodes)
        job_desc.max_nodes = tonumber(answer.nodes)
        what = string.format("%s x%s nodes", answer.type, answer.nodes)
      end
      job_desc.comment = string.format("headroom: %s placed on %s", what, answer.node)
    end
    slurm.log_info("headroom: %s %s (%s) %s", answer.job, d, answer.type, answer.node or "")
    return slurm.SUCCESS
  elseif d == "rejected" then
    slurm.log_user("headroom rejected this job: %s", answer.message)
    slurm.log_info("headroom: %s rejected: %s", answer.job, answer.message)
    return slurm.ERROR
  elseif d == "refused" then
    slurm.log_user("headroom cannot admit this job: %s", answer.message)
    return slurm.ERROR
  end
  slurm.log_error("headroom: unavailable (%s); on_error=%s", answer.message or "?",
                  conf.on_error or "reject")
  if conf.on_error == "accept" then
    return slurm.SUCCESS
  end
  slurm.log_user("headroom is unavailable, job refused: %s", answer.message or "no answer")
  return slurm.ERROR
end

-- A user must not move or resize a job Headroom placed: Headroom's books would no longer match.
function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
  if modify_uid == 0 or not job_rec.admin_comment
     or job_rec.admin_comment:sub(1, #PREFIX) ~= PREFIX then
    return slurm.SUCCESS
  end
  -- The account too: it is the job's tenant, whose quota Headroom charged.
  if job_desc.req_nodes or job_desc.tres_per_node or job_desc.account
     or set(job_desc.min_cpus, NO_VAL) or set(job_desc.min_mem_per_node, NO_VAL)
     or set(job_desc.min_mem_per_cpu, NO_VAL) or set(job_desc.min_nodes, NO_VAL)
     or set(job_desc.max_nodes, NO_VAL) then
    slurm.log_user("headroom placed this job; its nodes, size and account cannot be changed")
    return slurm.ERROR
  end
  -- `scontrol release` arrives as a priority change; a queued job starts when Headroom says.
  if job_desc.priority ~= nil and job_desc.priority ~= NO_VAL then
    slurm.log_user("headroom starts this job when its queue reaches it; it cannot be released")
    return slurm.ERROR
  end
  return slurm.SUCCESS
end

slurm.log_info("headroom job_submit.lua loaded (config %s)", CONF)
return slurm.SUCCESS
