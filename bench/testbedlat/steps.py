#!/usr/bin/env python3
"""Per-step times of the 0-byte PingPong messages in an ftrace of steps.sh.

Usage: steps.py PREFIX RATE   (reads PREFIX.tids and PREFIX.trace; RATE in Mbit/s)

Every message of the PingPong is followed from the sending rank's writev to
the receiving rank's read of its 32-byte header:
  send      writev(2) of the sending rank
  xmit      net_dev_queue on the sender's eth0 (the frame reaches its TAP)
  read      the forwarder's read(2) of the frame from that TAP
  write     the forwarder's write(2) of the frame to the receiver's TAP
  rx        netif_receive_skb on the receiver's eth0 (in the forwarder's call)
  recv      read(2) of the receiving rank returning the header
read->write holds the model's time (two line times of the frame through the
store-and-forward switch) plus the forwarder's lateness. "receiver off CPU"
is the time from rx until the receiving thread was switched in, for the
messages whose receiver was not running at rx. Also counted per message:
wake-ups of the forwarder's threads other than its loop (the Go runtime's),
and timer interrupts.
"""
import re
import statistics
import sys

prefix, rate = sys.argv[1], float(sys.argv[2])
role = {}
for line in open(prefix + '.tids'):
    f = line.split()
    role[int(f[1])] = f[0]
rx = re.compile(r'^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+):\s+(\w+)(?::|\(| ->)\s*(.*)$')
ren = {'sys_writev': 'writev', 'sys_write': 'write', 'sys_read': 'read'}
events = []
for line in open(prefix + '.trace'):
    m = rx.match(line)
    if m:
        events.append((float(m.group(4)) * 1e6, int(m.group(2)), ren.get(m.group(5), m.group(5)), m.group(6)))
events.sort(key=lambda e: e[0])

loop = None  # the forwarder's loop thread: the one that reads frames
for t, tid, name, args in events:
    if name == 'read' and role.get(tid) == 'fwd':
        loop = tid
        break
switched_in = {}
msgs, m = [], None
for t, tid, name, args in events:
    r = role.get(tid, '?')
    if name == 'sched_switch':
        n = int(re.search(r'next_pid=(\d+)', args).group(1))
        switched_in[n] = t
        continue
    if name == 'writev' and r.startswith('n'):
        if m is not None and 'recv' in m:
            msgs.append(m)
        m = {'src': r, 'send': t, 'rtwake': 0, 'timer': 0}
        continue
    if m is None:
        continue
    if name == 'local_timer_entry':
        m['timer'] += 1
    elif name == 'sched_waking':
        w = int(re.search(r'pid=(\d+)', args).group(1))
        if role.get(w) == 'fwd' and w != loop:
            m['rtwake'] += 1
    elif name == 'net_dev_queue' and r == m['src'] and 'xmit' not in m:
        m['xmit'] = t
        m['len'] = int(re.search(r'len=(\d+)', args).group(1))
    elif name == 'read' and tid == loop and 'xmit' in m and 'read' not in m:
        m['read'] = t
    elif name == 'write' and tid == loop and 'read' in m and 'write' not in m:
        m['write'] = t
    elif name == 'netif_receive_skb' and 'write' in m and 'rx' not in m:
        m['rx'] = t
    elif name == 'read' and r.startswith('n') and r != m['src'] and 'rx' in m and 'recv' not in m:
        m['recv'] = t
        m['offcpu'] = max(switched_in.get(tid, 0) - m['rx'], 0)

ok = [x for x in msgs if all(k in x for k in ('xmit', 'read', 'write', 'rx', 'recv'))]
print(f'# {len(msgs)} messages traced, {len(ok)} followed from writev to read; times in usec: median (p10..p90)')
steps = [('send -> xmit (sender\'s TCP/IP)', 'send', 'xmit'), ('xmit -> forwarder read', 'xmit', 'read'),
         ('read -> write (model + lateness)', 'read', 'write'), ('write -> rx (receiver\'s stack)', 'write', 'rx'),
         ('rx -> receiving rank\'s read', 'rx', 'recv'), ('send -> recv, one way', 'send', 'recv')]


def show(label, d):
    d = sorted(d)
    print(f'{label:36s} {statistics.median(d):7.1f}  ({d[len(d) // 10]:.1f}..{d[len(d) * 9 // 10]:.1f})')


if ok:
    # Ethernet: FCS 4 bytes, padded to 64, preamble 8 and gap 12 (medium.WireBytes).
    wire = max(ok[0]['len'] + 4, 64) + 20
    print(f'model: frame of {ok[0]["len"]} bytes, {wire} on the wire, {wire * 8 / rate:.1f} usec per line, '
          f'{2 * wire * 8 / rate:.1f} through the switch')
for label, a, b in steps:
    show(label, [x[b] - x[a] for x in ok])
off = [x['offcpu'] for x in ok if x['offcpu'] > 0]
print(f'receiver off CPU at rx: {len(off)} of {len(ok)} messages')
if off:
    show('  its wait for the CPU', off)
turn = [b['send'] - a['recv'] for a, b in zip(ok, ok[1:]) if b['src'] != a['src']]
if turn:
    show('rank turnaround (recv -> next send)', turn)
n = max(len(ok), 1)
print(f'per message: {sum(x["rtwake"] for x in ok) / n:.2f} wake-ups of forwarder threads other than its loop, '
      f'{sum(x["timer"] for x in ok) / n:.2f} timer interrupts')
