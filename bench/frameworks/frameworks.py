#!/usr/bin/env python3
"""Run the IMB-MPI1 command lines two benchmarking frameworks build, with
IMB-MPI1 and with mpbench in its place, and feed every output to that
framework's own parser, unmodified.

Frameworks (their public repositories, checked out by the caller):
  PerfKitBenchmarker  perfkitbenchmarker/linux_packages/mpi.py:
      BuildMpiBenchmarkArgs builds the command line, MpiResultParser reads
      stdout, _GroupLatencyLines and _CreateMpiDataForHistogram read the
      -dumpfile file.
  stackhpc/hpc-tests  apps/imb/reframe_imb.py runs "IMB-MPI1 pingpong",
      "IMB-MPI1 uniband -npmin N" and "IMB-MPI1 biband -npmin N" (the
      command lines ReFrame wrote into the repository's job scripts,
      output/*/*/imb/*/rfm_*_job.sh, are used as they are); modules/imb.py
      read_imb_out reads stdout and the tests' METRICS reduce its columns.

Only what the parsers never call is stubbed: PerfKitBenchmarker's VM and
package modules (a local file copy stands in for the VM's PullFile).
mpbench runs as IMB-MPI1 (a link named IMB-MPI1 to the mpbench binary), so
the command lines are used unchanged. Needs python3-absl and python3-pandas.

Usage (Debian's python3, where python3-absl and python3-pandas install;
the checkouts may be "git archive" exports of the two repositories):
  /usr/bin/python3 bench/frameworks/frameworks.py --pkb DIR --hpctests DIR \\
      --imb /path/to/IMB-MPI1 --mpbench /path/to/mpbench-mpi \\
      [--launcher 'mpirun.openmpi --allow-run-as-root --oversubscribe']
Prints, for every command line, what each parser extracted from IMB-MPI1's
output and from mpbench's, side by side, and whether the structure (tables,
process counts, groups, columns, sizes, repetitions, histograms) is equal.
Exit status 1 when a structure differs.
"""

import argparse
import glob
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import types


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def stub_pkb(rundir):
    """Stand-ins for the PerfKitBenchmarker modules mpi.py imports that its
    parsing never calls (VM control, package installation)."""
    pkg = types.ModuleType("perfkitbenchmarker")
    pkg.__path__ = []
    lp = types.ModuleType("perfkitbenchmarker.linux_packages")
    lp.__path__ = []
    errors = types.ModuleType("perfkitbenchmarker.errors")

    class Benchmarks:
        class RunError(Exception):
            pass

    class VirtualMachine:
        class RemoteCommandError(Exception):
            pass

    errors.Benchmarks, errors.VirtualMachine = Benchmarks, VirtualMachine
    temp_dir = types.ModuleType("perfkitbenchmarker.temp_dir")
    temp_dir.GetRunDirPath = lambda: rundir
    mods = {"perfkitbenchmarker": pkg, "perfkitbenchmarker.linux_packages": lp,
            "perfkitbenchmarker.errors": errors, "perfkitbenchmarker.temp_dir": temp_dir}
    for name in ("imb", "intelmpi", "omb", "openmpi"):
        mods["perfkitbenchmarker.linux_packages." + name] = types.ModuleType(name)
    sys.modules.update(mods)
    pkg.errors, pkg.temp_dir = errors, temp_dir


class LocalVM:
    """The two VM calls _GroupLatencyLines makes, on this host."""

    def TryRemoteCommand(self, cmd):
        return subprocess.run(cmd, shell=True).returncode == 0

    def PullFile(self, local, remote):
        shutil.copy(remote, local)


def run(cmdline):
    out = subprocess.run(cmdline, shell=True, capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        sys.exit(f"{cmdline}: exit status {out.returncode}\n{out.stderr}")
    return out.stdout


def pkb_structure(results):
    s = []
    for r in results:
        rows = [(d.bytes, d.repetitions, tuple(sorted((d.data or {}).keys())), d.is_error,
                 sum(d.histogram.values()) if d.histogram else 0) for d in r.data]
        s.append((r.benchmark, r.groups, r.processes_per_group, r.mode, r.group_layout, rows))
    return s


def pkb_show(results):
    lines = []
    for r in results:
        lines.append(f"{r.benchmark}: groups={r.groups} processes={r.processes_per_group} layout={r.group_layout}")
        for d in r.data:
            keys = sorted((d.data or {}).keys())
            vals = ", ".join(f"{k}={d.data[k]:g}" for k in keys if k in ("time_avg", "time_max", "throughput", "latency_p50", "latency_p99", "messages_per_sec"))
            hist = f" histogram={sum(d.histogram.values())} samples" if d.histogram else ""
            lines.append(f"  bytes={d.bytes} reps={d.repetitions} fields={len(keys)} {vals}{hist}")
    return lines


def side_by_side(title, cmd, left, right, same):
    print(f"\n## {title}\n\n    {cmd}\n")
    width = max([len(x) for x in left] + [len("IMB-MPI1")])
    print(f"    {'IMB-MPI1'.ljust(width)} | mpbench")
    for i in range(max(len(left), len(right))):
        a = left[i] if i < len(left) else ""
        b = right[i] if i < len(right) else ""
        print(f"    {a.ljust(width)} | {b}")
    print(f"\n    structure {'equal' if same else 'DIFFERS'}")
    return same


def pkb(args, progs, tmp):
    stub_pkb(tmp)
    mpi = load("perfkitbenchmarker.linux_packages.mpi",
               os.path.join(args.pkb, "perfkitbenchmarker/linux_packages/mpi.py"))
    ok = True
    requests = [  # VerifyInstall's request with the latency histogram; a 2-host -map layout
        dict(vms=[None], total_processes=2, tests=["PingPong"], multi=True),
        dict(vms=[None, None], total_processes=4, tests=["PingPong", "Allreduce"], multi=True),
    ]
    for spec in requests:
        req = mpi.MpiRequest(suite="IMB-MPI1", ppn=0, msglog_min=10, msglog_max=11, timeout=60,
                             off_cache_size=-1, off_cache_line_size=None, iterations=100,
                             include_zero_byte=False, compile_from_source=True,
                             record_latencies=True, **spec)
        got = {}
        for name, prog in progs.items():
            os.makedirs(os.path.join(tmp, "vm"), exist_ok=True)  # the "VM's" side of PullFile
            latency = os.path.join(tmp, "vm", f"latency-{name}-{spec['total_processes']}.txt")
            argv = mpi.BuildMpiBenchmarkArgs(req, latency, bool(req.ppn))
            shown = " ".join(argv).replace(latency, "LATENCY_FILE")
            argv[0] = prog
            cmd = f"{args.launcher} -np {req.total_processes} {' '.join(argv)}"
            results = list(mpi.MpiResultParser(run(cmd).splitlines()))
            lat = mpi._GroupLatencyLines(LocalVM(), latency, req.iterations)
            mpi._CreateMpiDataForHistogram(lat, results)
            got[name] = results
        same = pkb_structure(got["imb"]) == pkb_structure(got["mpbench"])
        ok &= side_by_side(f"PerfKitBenchmarker, {req.total_processes} processes", f"mpirun -np {req.total_processes} {shown}",
                           pkb_show(got["imb"]), pkb_show(got["mpbench"]), same)
    return ok


def hpctests_commands(root, tasks):
    """The IMB-MPI1 command lines of the suite's job scripts with their
    task count, for the task counts in tasks: per benchmark and task count
    the one with the largest -npmin (the suite's scaling steps differ only
    there)."""
    seen = {}
    for path in sorted(glob.glob(os.path.join(root, "output/*/*openmpi*/imb/*/rfm_*_job.sh"))):
        ntasks, cmd = None, None
        for line in open(path):
            if line.startswith("#SBATCH --ntasks="):
                ntasks = int(line.split("=")[1])
            if "IMB-MPI1" in line:
                cmd = line.strip()
        if cmd and ntasks in tasks:
            words = shlex.split(cmd)
            imb_args = words[words.index("IMB-MPI1") + 1:]
            npmin = int(imb_args[imb_args.index("-npmin") + 1]) if "-npmin" in imb_args else 0
            k = (imb_args[0], ntasks)
            if k not in seen or npmin > seen[k][0]:
                seen[k] = (npmin, " ".join(imb_args))
    return sorted((args, k[1]) for k, (_, args) in seen.items())


def hpctests(args, progs, tmp):
    imbmod = load("hpctests_imb", os.path.join(args.hpctests, "modules/imb.py"))
    metrics = {"pingpong": [("Mbytes/sec", max), ("t[usec]", min)],
               "uniband": [("Mbytes/sec", max)], "biband": [("Mbytes/sec", max)]}
    ok = True
    for imb_args, ntasks in hpctests_commands(args.hpctests, [int(n) for n in args.tasks.split(",")]):
        shown, got = {}, {}
        for name, prog in progs.items():
            out = os.path.join(tmp, f"hpc-{name}.out")
            with open(out, "w") as f:
                f.write(run(f"{args.launcher} -np {ntasks} {prog} {imb_args}"))
            try:
                tables = imbmod.read_imb_out(out)
            except Exception as e:  # the suite's parser fails on this output: show how
                shown[name] = [f"read_imb_out raised {type(e).__name__}: {e}"]
                got[name] = ("parser failed", type(e).__name__)
                continue
            bench = imb_args.split()[0]
            df = tables[ntasks if bench != "pingpong" else 2]
            lines = [f"tables at np {sorted(tables)}; columns {list(df.columns)}; {len(df)} rows"]
            for col, fn in metrics[bench]:
                lines.append(f"  {fn.__name__}({col}) = {fn(df[col]):g}")
            got[name] = (sorted(tables), [(list(t.columns), len(t), list(t['#bytes'])) for t in tables.values()])
            shown[name] = lines
        ok &= side_by_side(f"hpc-tests (ReFrame), {ntasks} tasks", f"srun IMB-MPI1 {imb_args}",
                           shown["imb"], shown["mpbench"], got["imb"] == got["mpbench"])
    return ok


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pkb", required=True, help="PerfKitBenchmarker checkout")
    p.add_argument("--hpctests", required=True, help="stackhpc/hpc-tests checkout")
    p.add_argument("--imb", required=True, help="IMB-MPI1 executable")
    p.add_argument("--mpbench", required=True, help="mpbench executable built with -tags mpi")
    p.add_argument("--launcher", default="mpirun.openmpi --allow-run-as-root --oversubscribe")
    p.add_argument("--tasks", default="2,4", help="hpc-tests task counts to run (comma-separated)")
    p.add_argument("--frameworks", default="pkb,hpctests", help="which frameworks to run")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        link = os.path.join(tmp, "IMB-MPI1")
        os.symlink(os.path.abspath(args.mpbench), link)
        progs = {"imb": os.path.abspath(args.imb), "mpbench": link}
        ok = True
        if "pkb" in args.frameworks:
            ok &= pkb(args, progs, tmp)
        if "hpctests" in args.frameworks:
            ok &= hpctests(args, progs, tmp)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
