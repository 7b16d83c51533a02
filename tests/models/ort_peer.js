// SPDX-License-Identifier: Apache-2.0
// ort_peer.js -- ONNX Runtime (onnxruntime-node, CPU execution provider) as
// the peer of wnn's ONNX importer: runs a model on inputs given as .npy
// files, writes its outputs as .npy files, and optionally times it.
//
//   node tests/models/ort_peer.js MODEL.onnx IN_DIR OUT_DIR [--threads N] [--repeat N]
//
// IN_DIR holds NAME.npy per model input (the file name is the input name,
// with '/' written as '%2F'); OUT_DIR gets NAME.npy per output. With
// --repeat N it runs 5 warm-up and N timed runs and prints one JSON line:
// {"ms_mean": ..., "ms_p50": ..., "ms_min": ..., "ms": [each run], "threads": N}. Used by
// tests/python/test_models.py (references) and bench/bench_models.py
// (timing). onnxruntime-node comes from third_party/npm (npm ci there).
'use strict';
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..', '..');
const ort = require(path.join(root, 'third_party', 'npm', 'node_modules', 'onnxruntime-node'));

// .npy, format 1.0-3.0, C order, little-endian: the dtypes the models use.
const DTYPES = {
  '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array], '<i8': ['int64', BigInt64Array],
  '<i4': ['int32', Int32Array], '|u1': ['uint8', Uint8Array], '|i1': ['int8', Int8Array],
  '|b1': ['bool', Uint8Array],
};

function readNpy(file) {
  const buf = fs.readFileSync(file);
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${file}: Fortran order`);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').filter((s) => s.trim()).map(Number);
  const [type, Ctor] = DTYPES[descr] || [];
  if (!type) throw new Error(`${file}: dtype ${descr} not handled`);
  const body = buf.subarray(start + hlen);
  const data = new Ctor(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength));
  return new ort.Tensor(type, type === 'bool' ? Uint8Array.from(data) : data, shape);
}

function writeNpy(file, tensor) {
  const descr = Object.keys(DTYPES).find((k) => DTYPES[k][0] === tensor.type);
  if (!descr) throw new Error(`output type ${tensor.type} not handled`);
  const shape = tensor.dims.length === 1 ? `(${tensor.dims[0]},)` : `(${tensor.dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const pre = Buffer.alloc(10);
  Buffer.from('\x93NUMPY', 'latin1').copy(pre);
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const data = tensor.type === 'bool' ? Uint8Array.from(tensor.data, Number) : tensor.data;
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'),
    Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

async function main() {
  const args = process.argv.slice(2);
  const opt = (name, def) => {
    const i = args.indexOf(name);
    if (i < 0) return def;
    const v = Number(args[i + 1]);
    args.splice(i, 2);
    return v;
  };
  const threads = opt('--threads', 0);
  const repeat = opt('--repeat', 0);
  const [model, inDir, outDir] = args;
  if (!outDir) throw new Error('usage: ort_peer.js MODEL.onnx IN_DIR OUT_DIR [--threads N] [--repeat N]');
  const options = { executionProviders: ['cpu'], graphOptimizationLevel: 'all' };
  if (threads > 0) {
    options.intraOpNumThreads = threads;
    options.interOpNumThreads = 1;
  }
  const session = await ort.InferenceSession.create(model, options);
  const feeds = {};
  for (const name of session.inputNames)
    feeds[name] = readNpy(path.join(inDir, encodeURIComponent(name) + '.npy'));
  const out = await session.run(feeds);
  fs.mkdirSync(outDir, { recursive: true });
  for (const name of session.outputNames) writeNpy(path.join(outDir, encodeURIComponent(name) + '.npy'), out[name]);
  if (repeat > 0) {
    for (let i = 0; i < 5; i++) await session.run(feeds);
    const ms = [];
    for (let i = 0; i < repeat; i++) {
      const t = process.hrtime.bigint();
      await session.run(feeds);
      ms.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    const runs = ms.slice();
    ms.sort((a, b) => a - b);
    const mean = ms.reduce((a, b) => a + b, 0) / ms.length;
    console.log(JSON.stringify({ ms_mean: mean, ms_p50: ms[ms.length >> 1], ms_min: ms[0], ms: runs, threads }));
  }
}

main().catch((e) => {
  console.error(`ort_peer: ${e.message}`);
  process.exit(1);
});
