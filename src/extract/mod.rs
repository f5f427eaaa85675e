//! Per-entity fact emitters and the pipeline that runs them.
//!
//! Per module: a [`ModuleCtx`] (global ids, source variable names, comdat names) per LLVM
//! context the module was read in (one, or one per thread: shards, see `input.rs`); then,
//! in parallel, the module-level facts and the functions, in runs of consecutive functions
//! (each function's header, then its body), each into its own [`FactBuf`]; buffers are
//! handed to the output in module order as soon as the ones before them are, so the bytes
//! written depend neither on the number of threads nor on the shards, and writing overlaps
//! extraction. Type facts come last, from the union of the types every worker used.
//!
//! Safety: the `unsafe fn`s of this module and its children take LLVM handles, and share
//! one contract, stated here once: every handle belongs to a module that is alive (owned
//! by an `input::Module`), and is used from several threads only as `llvm.rs` says.
#![allow(clippy::missing_safety_doc)]

mod attrs;
mod body;
mod constants;
mod dominators;
mod driver;
mod globals;
mod input;
pub mod llvm;
mod metadata;
mod pointsto;
mod types;

use llvm::{PtrMap, PtrSet};
use std::ffi::CString;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Condvar, Mutex};

use anyhow::Result;
use llvm_sys::core::*;
use llvm_sys::debuginfo::{LLVMDILocationGetColumn, LLVMDIVariableGetLine};
use llvm_sys::prelude::*;

use crate::facts::buf::{FactBuf, Id};
use input::Module;
use llvm::Handle;

pub use driver::{ReadOptions, Summary, skipped_message, to_dir, to_memory, to_sink};
use types::EmittedTypes;

/// The parse floor, the benchmarks' baseline (`src/bin/llvm-parse.rs`): reads one module
/// through LLVM's C API in one context and verifies it, as every extraction must, and does
/// nothing else. Returns the number of functions (declarations included).
pub fn parse_only(path: &std::path::Path) -> anyhow::Result<usize> {
    let module = input::read(path)?.parse()?;
    Ok(unsafe { llvm::functions(module.raw()).len() })
}

/// Read-only knowledge about one module, shared by every worker.
pub struct ModuleCtx {
    /// The module's id: unique among the inputs of one run, prefix of every id inside it.
    pub id: Id,
    /// The same, unescaped.
    raw_id: Vec<u8>,
    raw: Handle<LLVMModuleRef>,
    global_ids: PtrMap<Handle<LLVMValueRef>, Id>,
    /// Source-level variable names from debug variable records, keyed by the described value.
    pub source_names: PtrMap<Handle<LLVMValueRef>, Vec<SourceName>>,
    /// Content hashes of the DI types that globals, functions and variables name.
    pub di_hashes: metadata::DiHashes,
    comdats: PtrMap<Handle<LLVMComdatRef>, Vec<u8>>,
    /// Serializes the few C API calls that create values in the LLVM context.
    context_lock: Mutex<()>,
}

impl ModuleCtx {
    /// Hold this while calling a C API function that creates values in the context (a
    /// panic elsewhere while holding it leaves nothing half-done, so poisoning is ignored).
    pub fn lock_context(&self) -> std::sync::MutexGuard<'_, ()> {
        self.context_lock.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs on one thread per context: it reads metadata, which creates wrapper values.
    unsafe fn new(module: &Module, id: Vec<u8>) -> ModuleCtx {
        unsafe {
            let m = module.raw();
            let mut global_ids = PtrMap::default();
            let mut unnamed = 0;
            let mut comdats = PtrMap::default();
            let all = [
                llvm::globals(m),
                llvm::functions(m),
                llvm::aliases(m),
                llvm::ifuncs(m),
            ]
            .concat();
            for g in all {
                let label = constants::global_label(g, unnamed);
                if llvm::name(g).is_empty() {
                    unnamed += 1;
                }
                global_ids.insert(Handle(g), Id::new(&[&id[..], b":", &label].concat()));
                if let Ok(cname) = CString::new(llvm::name(g)) {
                    if LLVMIsAGlobalObject(g).is_null()
                        || llvm_sys::comdat::LLVMGetComdat(g).is_null()
                    {
                        continue;
                    }
                    // The C API cannot name a comdat; find the global name whose comdat it is.
                    let c = llvm_sys::comdat::LLVMGetOrInsertComdat(m, cname.as_ptr());
                    comdats.insert(Handle(c), llvm::name(g).to_vec());
                }
            }
            let source_names = source_names(m);
            ModuleCtx {
                id: Id::new(&id),
                raw_id: id,
                raw: Handle(m),
                global_ids,
                di_hashes: metadata::module_di_hashes(m, &source_names),
                source_names,
                comdats,
                context_lock: Mutex::new(()),
            }
        }
    }

    pub fn raw(&self) -> LLVMModuleRef {
        self.raw.0
    }

    pub fn global_id(&self, v: LLVMValueRef) -> &Id {
        &self.global_ids[&Handle(v)]
    }

    unsafe fn comdat_name(&self, g: LLVMValueRef) -> Option<&[u8]> {
        let c = unsafe { llvm_sys::comdat::LLVMGetComdat(g) };
        if c.is_null() {
            None
        } else {
            self.comdats.get(&Handle(c)).map(|n| &n[..])
        }
    }
}

/// A source-level name of a value: name, declaration line and column, the variable's DI
/// type (null when it has none), and whether the value is the variable's address
/// (`#dbg_declare`) or its value.
pub struct SourceName {
    pub name: Vec<u8>,
    pub line: i32,
    pub column: i32,
    pub ty: Handle<LLVMMetadataRef>,
    pub address: bool,
    /// The record's DIExpression is empty: the value is the variable (or its address) exactly.
    pub plain: bool,
}

/// Source variable names: the value each debug variable record (`#dbg_declare`,
/// `#dbg_value`, `#dbg_assign`; LLVM 22 upgrades older producers' `llvm.dbg.*` calls to these
/// on reading) describes, with the DILocalVariable's name (operand 1 of the node) and line, and
/// the column of the record's debug location (a DILocalVariable has no column; the record's
/// location is the declaration).
unsafe fn source_names(m: LLVMModuleRef) -> PtrMap<Handle<LLVMValueRef>, Vec<SourceName>> {
    let mut names: PtrMap<Handle<LLVMValueRef>, Vec<SourceName>> = PtrMap::default();
    unsafe {
        // No compile unit, no variable records: spare the walk over every instruction
        // (a module without debug info; 3 ms per context on Lua -O0).
        if LLVMGetNamedMetadata(m, c"llvm.dbg.cu".as_ptr(), "llvm.dbg.cu".len()).is_null() {
            return names;
        }
        for f in llvm::functions(m) {
            for bb in llvm::blocks(f) {
                for i in llvm::instructions(bb) {
                    let mut record = LLVMGetFirstDbgRecord(i);
                    while !record.is_null() {
                        source_name(&mut names, record);
                        record = LLVMGetNextDbgRecord(record);
                    }
                }
            }
        }
    }
    names
}

/// One debug record's name for the value it describes, if it names a single value.
unsafe fn source_name(
    names: &mut PtrMap<Handle<LLVMValueRef>, Vec<SourceName>>,
    record: LLVMDbgRecordRef,
) {
    unsafe {
        let mut variable = std::ptr::null_mut();
        let (mut address, mut plain) = (0, 0);
        let described = metadata::llfacts_dbg_record(record, &mut variable, &mut address, &mut plain);
        if described.is_null() || variable.is_null() {
            return; // A label, a DIArgList, or an empty or constant location.
        }
        // Unnamed variables (some artificial ones) have no name operand at all.
        let Some(text) = metadata::md_string_operand(variable, 1) else {
            return;
        };
        if text.is_empty() {
            return;
        }
        let line = LLVMDIVariableGetLine(variable) as i32;
        let loc = LLVMDbgRecordGetDebugLoc(record);
        let column = if loc.is_null() {
            0
        } else {
            LLVMDILocationGetColumn(loc) as i32
        };
        let ty = metadata::llfacts_di_variable_type(variable);
        let entry = names.entry(Handle(described)).or_default();
        match entry.iter_mut().find(|n| n.name == text && n.line == line) {
            // One value may be a fragment of the variable in one record and all of it in another.
            Some(n) => n.plain |= plain != 0,
            None => entry.push(SourceName {
                name: text.to_vec(),
                line,
                column,
                ty: Handle(ty),
                address: address != 0,
                plain: plain != 0,
            }),
        }
    }
}

/// One worker's state: its output buffer, type namer, and the current function's numbering.
pub struct Worker<'m> {
    pub m: &'m ModuleCtx,
    pub out: FactBuf,
    pub types: types::TypeNamer<'m>,
    locals: PtrMap<LLVMValueRef, Id>,
    blocks: PtrMap<LLVMBasicBlockRef, Id>,
    /// Block ids of functions that `blockaddress` constants name, numbered once each
    /// (a computed-goto table names one function's blocks many times).
    blockaddress_blocks: PtrMap<LLVMValueRef, PtrMap<LLVMBasicBlockRef, Id>>,
    /// Constant spellings and keys, printed once per constant, and types as LLVM prints them.
    spellings: PtrMap<LLVMValueRef, std::rc::Rc<constants::Spelling>>,
    type_texts: PtrMap<LLVMTypeRef, std::rc::Rc<[u8]>>,
    pt: pointsto::PtState,
    md: metadata::MdState,
}

impl<'m> Worker<'m> {
    fn new(m: &'m ModuleCtx) -> Self {
        Worker {
            m,
            out: FactBuf::new(),
            types: types::TypeNamer::new(&m.raw_id),
            locals: PtrMap::default(),
            blocks: PtrMap::default(),
            blockaddress_blocks: PtrMap::default(),
            spellings: PtrMap::default(),
            type_texts: PtrMap::default(),
            pt: Default::default(),
            md: Default::default(),
        }
    }
}

pub fn callconv_name(cc: u32) -> String {
    match cc {
        0 => "ccc".into(),
        8 => "fastcc".into(),
        9 => "coldcc".into(),
        10 => "ghccc".into(),
        11 => "cc 11".into(),
        13 => "anyregcc".into(),
        14 => "preserve_mostcc".into(),
        15 => "preserve_allcc".into(),
        16 => "swiftcc".into(),
        17 => "cxx_fast_tlscc".into(),
        18 => "tailcc".into(),
        20 => "swifttailcc".into(),
        64 => "x86_stdcallcc".into(),
        65 => "x86_fastcallcc".into(),
        70 => "x86_thiscallcc".into(),
        78 => "x86_64_sysvcc".into(),
        79 => "win64cc".into(),
        _ => format!("cc {cc}"),
    }
}

/// What one module contributed.
#[derive(Default, Clone, Copy)]
pub struct Counts {
    pub functions: usize,
    pub instructions: usize,
}

/// Consecutive functions emitted by one worker (and read by one shard).
const RUN: usize = 16;
/// Runs that may be done but not yet handed on, per thread: bounds the memory held while
/// one long run keeps the others waiting. One: fewer buffers in flight stay in the cache
/// and need fewer fresh pages (SQLite -O0, `-j 2`: 7% less CPU and 23% less memory than
/// four), and the large runs that would make the others wait go first anyway.
const WINDOW_PER_THREAD: usize = 1;

/// Where finished buffers go, in order.
pub type Sink<'a> = dyn FnMut(FactBuf) -> Result<()> + Send + 'a;
/// Progress: defined functions done, and in all.
pub type Progress<'a> = dyn FnMut(usize, usize) + Send + 'a;

/// A finished run: its facts, its shard, the types and metadata nodes it used there, its
/// instructions.
type Done = (
    FactBuf,
    usize,
    Vec<Handle<LLVMTypeRef>>,
    metadata::Used,
    usize,
);

/// Runs finished out of order wait here until the runs before them are handed on.
struct InOrder {
    /// The first run not yet taken out to be handed on.
    next: usize,
    waiting: std::collections::BTreeMap<usize, Done>,
    /// Per shard.
    used_types: Vec<PtrSet<Handle<LLVMTypeRef>>>,
    used_md: Vec<metadata::Used>,
    counts: Counts,
    failed: Option<anyhow::Error>,
}

/// Where runs go in order. Locked apart from [`InOrder`], by the one thread that hands runs
/// on: the sink writes them out (a large part of the work: the kernel copies the facts into
/// the page cache), and the other threads go on finishing runs meanwhile.
struct Output<'s, 'p> {
    sink: &'s mut Sink<'p>,
    progress: &'s mut Progress<'p>,
}

fn locked<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Hands on the runs that are next in order. A thread that finds another one doing it
/// leaves its run to that one, which looks for more after letting the output go.
fn hand_on(
    state: &Mutex<InOrder>,
    output: &Mutex<Output>,
    moved: &Condvar,
    defined_before: &[usize],
) {
    let defined = defined_before.last().copied().unwrap_or(0);
    loop {
        let mut out = match output.try_lock() {
            Ok(out) => out,
            Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return,
        };
        loop {
            let (facts, next, failed) = {
                let mut st = locked(state);
                let st = &mut *st;
                let Some((facts, shard, types, md, n)) = st.waiting.remove(&st.next) else {
                    break;
                };
                st.used_types[shard].extend(types);
                st.used_md[shard].extend(md);
                st.counts.instructions += n;
                st.next += 1;
                moved.notify_all();
                (facts, st.next, st.failed.is_some())
            };
            if !failed && let Err(e) = (out.sink)(facts) {
                locked(state).failed.get_or_insert(e);
                moved.notify_all();
            }
            (out.progress)(defined_before[next - 1], defined);
        }
        drop(out);
        let st = locked(state);
        if !st.waiting.contains_key(&st.next) {
            return;
        }
    }
}

/// The order in which threads take tasks (see `extract_module`), each with whether it is
/// taken early: in order, except that with several threads a large run (more than an
/// eighth of a thread's share of the module's blocks, and more than the runs after it
/// leave to each other thread) comes first, ahead of the window. Taken in its turn, such a
/// run is still running when the others are done, and every other thread waits for it
/// (Lua's `luaV_execute`, 14% of its instructions, is near the module's end). Its facts
/// wait for their turn in memory meanwhile.
unsafe fn task_order(
    functions: &[Vec<Handle<LLVMValueRef>>],
    owner: &[usize],
    runs: usize,
    threads: usize,
) -> Vec<(usize, bool)> {
    let n = functions[0].len();
    let blocks: Vec<usize> = (0..runs)
        .map(|r| {
            let shard = owner.get(r).copied().unwrap_or(0);
            let run = &functions[shard][r * RUN..((r + 1) * RUN).min(n)];
            run.iter()
                .map(|&Handle(f)| unsafe { LLVMCountBasicBlocks(f) } as usize)
                .sum()
        })
        .collect();
    let total: usize = blocks.iter().sum();
    let mut after = vec![0; runs + 1];
    for r in (0..runs).rev() {
        after[r] = after[r + 1] + blocks[r];
    }
    let large = |r: usize| {
        threads > 1 && blocks[r] * 8 * threads > total && blocks[r] * (threads - 1) > after[r + 1]
    };
    let mut first: Vec<usize> = (0..runs).filter(|&r| large(r)).collect();
    first.sort_by_key(|&r| std::cmp::Reverse(blocks[r]));
    let early = first.iter().map(|&r| (1 + r, true));
    let rest = (0..=runs).filter(|&i| i == 0 || !large(i - 1));
    early.chain(rest.map(|i| (i, false))).collect()
}

/// The functions that get facts (all but the `llvm.dbg.*` declarations), in module order.
unsafe fn emitted_functions(m: LLVMModuleRef) -> Vec<Handle<LLVMValueRef>> {
    unsafe {
        llvm::functions(m)
            .into_iter()
            .filter(|&f| !llvm::is_debug_intrinsic_name(llvm::name(f)))
            .map(Handle)
            .collect()
    }
}

/// Emits every fact of a module, handing buffers to `sink` in a fixed order: the module and
/// its globals, then the functions in runs of [`RUN`] (each function's header, then its
/// body), then the types. `read` is the module as read in one context or several
/// (`input::Input::shards`); a run's functions are read from the shard that read their
/// bodies, and the bytes do not depend on the shards. `path` is how the input was named
/// on the command line.
pub fn extract_module(
    read: &input::Read,
    id: &[u8],
    path: &[u8],
    sink: &mut Sink,
    progress: &mut Progress,
    emitted_types: &mut EmittedTypes,
) -> Result<Counts> {
    unsafe {
        use rayon::prelude::*;
        // Each in its own context: distinct contexts may be used on distinct threads.
        let (shards, owner) = (&read.shards, &read.owner);
        let ctxs: Vec<ModuleCtx> = shards
            .par_iter()
            .map(|m| ModuleCtx::new(m, id.to_vec()))
            .collect();
        let k = ctxs.len();
        let functions: Vec<Vec<Handle<LLVMValueRef>>> =
            ctxs.iter().map(|c| emitted_functions(c.raw())).collect();
        let n = functions[0].len();
        if functions.iter().any(|f| f.len() != n) {
            anyhow::bail!("the shards of a module differ");
        }
        let used_types: Vec<PtrSet<Handle<LLVMTypeRef>>> = vec![PtrSet::default(); k];
        // Defined functions before each run, for the progress display.
        let runs = n.div_ceil(RUN);
        if !owner.is_empty() && owner.len() != runs {
            anyhow::bail!("the shards of a module differ");
        }
        let mut defined_before = Vec::with_capacity(runs + 1);
        defined_before.push(0);
        for r in 0..runs {
            let run = &functions[0][r * RUN..((r + 1) * RUN).min(n)];
            let defined = run
                .iter()
                .filter(|&&Handle(f)| !llvm::is_declaration(f))
                .count();
            defined_before.push(defined_before[r] + defined);
        }
        let defined = defined_before[runs];
        // Task 0 is the module and its globals, task `1 + r` run `r`. Runs are fixed by
        // position and handed on in order, so the output does not depend on scheduling; a
        // run's functions share a worker (its buffers and memos). Threads take tasks in
        // order, so the earliest unfinished one is always being worked on; the module-level
        // facts are a task too, so that the runs need not wait for them.
        let threads = rayon::current_num_threads();
        let window = WINDOW_PER_THREAD * threads;
        let order = task_order(&functions, owner, runs, threads);
        let taken = AtomicUsize::new(0);
        let output = Mutex::new(Output { sink, progress });
        let state = Mutex::new(InOrder {
            next: 0,
            waiting: Default::default(),
            used_types,
            used_md: (0..k).map(|_| Default::default()).collect(),
            counts: Counts {
                functions: defined,
                instructions: 0,
            },
            failed: None,
        });
        let moved = Condvar::new();
        rayon::scope(|s| {
            for _ in 0..rayon::current_num_threads() {
                s.spawn(|_| {
                    while let Some(&(i, early)) = order.get(taken.fetch_add(1, Relaxed)) {
                        {
                            let mut st = locked(&state);
                            while !early && i >= st.next + window && st.failed.is_none() {
                                st = moved.wait(st).unwrap_or_else(|e| e.into_inner());
                            }
                            if st.failed.is_some() {
                                break;
                            }
                        }
                        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            if i == 0 {
                                let mut head = Worker::new(&ctxs[0]);
                                head.globals(path);
                                let types = head.types.used.into_iter().collect();
                                return (head.out, 0, types, head.md.used, 0);
                            }
                            let r = i - 1;
                            let shard = owner.get(r).copied().unwrap_or(0);
                            let ctx = &ctxs[shard];
                            let mut w = Worker::new(ctx);
                            let mut instructions = 0;
                            for &Handle(f) in &functions[shard][r * RUN..((r + 1) * RUN).min(n)] {
                                w.function_header(f);
                                if !llvm::is_declaration(f) {
                                    instructions += w.function_body(ctx.global_id(f), f);
                                }
                            }
                            (
                                w.out,
                                shard,
                                w.types.used.into_iter().collect(),
                                w.md.used,
                                instructions,
                            )
                        }));
                        let mut st = locked(&state);
                        match run {
                            Ok(run) => st.waiting.insert(i, run),
                            Err(panic) => {
                                // The runs after this one would wait for it forever.
                                st.failed = Some(anyhow::anyhow!("a worker panicked"));
                                moved.notify_all();
                                drop(st);
                                std::panic::resume_unwind(panic);
                            }
                        };
                        drop(st);
                        hand_on(&state, &output, &moved, &defined_before);
                    }
                });
            }
        });
        let st = state.into_inner().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = st.failed {
            return Err(e);
        }
        let (counts, used_types, used_md) = (st.counts, st.used_types, st.used_md);
        let sink = output.into_inner().unwrap_or_else(|e| e.into_inner()).sink;

        let mut type_facts = FactBuf::new();
        let used: Vec<_> = ctxs.iter().map(|c| c.raw()).zip(used_types).collect();
        types::emit_type_facts(&used, &ctxs[0].raw_id, emitted_types, &mut type_facts);
        metadata::emit_metadata_facts(&ctxs, used_md, &mut type_facts);
        sink(type_facts)?;
        Ok(counts)
    }
}
