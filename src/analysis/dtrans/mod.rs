//! DTrans safety analysis (rules/dtrans.dl, docs/dtrans.md): per struct type, the safety
//! conditions found in the whole program, the field summaries, and what they leave legal:
//! reordering fields (and the padding it saves), deleting fields never read, splitting.

pub mod layout;
pub mod model;
pub mod render;
pub mod transform;

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;

use super::finding::Finding;
use super::locate::Locator;
use super::programs::RuleSource;
use super::rows::dtrans as out;
use super::session::{Session, Tables};
use super::unit::{Analysis, Options, Results};
pub use model::{Condition, FieldSummary, Report, TypeReport, Verdict};

pub static DTRANS: DTrans = DTrans;

pub struct DTrans;

const PROGRAM: &str = "rules/dtrans.dl";

impl Analysis for DTrans {
    fn name(&self) -> &'static str {
        "dtrans"
    }

    fn summary(&self) -> &'static str {
        "DTrans safety conditions per struct type and the layout changes they allow (rules/dtrans.dl)"
    }

    fn outputs(&self) -> &'static [&'static str] {
        out::OUTPUTS
    }

    fn run(&self, session: &Session, options: &Options) -> Result<Box<dyn Results>> {
        let source = RuleSource::builtin(PROGRAM).with(&options.rules);
        let tables = session.run(&source, out::OUTPUTS)?;
        let report = Report::new(session, &tables)?;
        Ok(Box::new(DTransResults { tables, report }))
    }
}

impl Report {
    fn new(session: &Session, tables: &Tables) -> Result<Report> {
        let facts = session.facts();
        let locate = Locator::new(facts)?;
        let layouts = layout::layouts(tables)?;

        let mut types: BTreeMap<String, TypeReport> = BTreeMap::new();
        for r in tables.rows::<out::dtrans_type>()? {
            let ty = r?.ty.to_string();
            let layout = layouts.get(&ty).cloned();
            let fields = (layout.iter().flat_map(|l| &l.fields))
                .map(|f| FieldSummary {
                    index: f.index,
                    ty: f.ty.clone(),
                    text: f.text.clone(),
                    name: f.name.clone(),
                    offset: f.offset,
                    size: f.size,
                    value: ("none".into(), String::new()),
                    ..FieldSummary::default()
                })
                .collect();
            types.insert(ty.clone(), TypeReport {
                ty,
                layout,
                ambiguous: None,
                conditions: vec![],
                fields,
                verdict: Verdict::default(),
            });
        }

        // One witness per condition: the first with a source location, else the first.
        let mut witnesses: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
        for r in tables.rows::<out::dtrans_safety_witness>()? {
            let r = r?;
            (witnesses.entry((r.ty.to_string(), r.condition.to_string())).or_default())
                .push(r.entity.to_string());
        }
        let pick = |entities: &[String]| {
            let located = entities.iter().find_map(|e| locate.location(e).map(|l| (e, l)));
            match located {
                Some((e, l)) => (e.clone(), Some(l)),
                None => (entities[0].clone(), None),
            }
        };
        for ((ty, name), entities) in witnesses {
            let Some(t) = types.get_mut(&ty) else { continue };
            let (witness, location) = pick(&entities);
            t.conditions.push(Condition { name, witness, location, ambiguous: false });
        }
        // The ambiguous set's conditions, each type's own witness first.
        let mut ambiguous: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for r in tables.rows::<out::dtrans_ambiguous_witness>()? {
            let r = r?;
            ambiguous.entry(r.condition.to_string()).or_default().push(r.entity.to_string());
        }
        let ambiguous: Vec<(String, (String, Option<_>))> =
            ambiguous.into_iter().map(|(name, entities)| (name, pick(&entities))).collect();
        let mut entries: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for r in tables.rows::<out::dtrans_ambiguous_entry>()? {
            let r = r?;
            entries.entry(r.ty.to_string()).or_default().push(r.entity.to_string());
        }
        for r in tables.rows::<out::dtrans_ambiguous>()? {
            let ty = r?.ty;
            let Some(t) = types.get_mut(ty) else { continue };
            t.ambiguous = Some(entries.get(ty).map_or((String::new(), None), |e| pick(e)));
            for (name, (witness, location)) in &ambiguous {
                if !t.conditions.iter().any(|c| &c.name == name) {
                    t.conditions.push(Condition {
                        name: name.clone(),
                        witness: witness.clone(),
                        location: location.clone(),
                        ambiguous: true,
                    });
                }
            }
            t.conditions.sort_by(|a, b| a.name.cmp(&b.name));
        }

        for r in tables.rows::<out::dtrans_field_access>()? {
            let r = r?;
            if let Some(f) = field_mut(&mut types, r.ty, r.field) {
                f.access.insert(r.kind.to_string());
            }
        }
        for r in tables.rows::<out::dtrans_field_value>()? {
            let r = r?;
            if let Some(f) = field_mut(&mut types, r.ty, r.field) {
                f.value = (r.state.to_string(), super::locate::display(r.value));
            }
        }
        for r in tables.rows::<out::dtrans_field_alloc>()? {
            let r = r?;
            if let Some(f) = field_mut(&mut types, r.ty, r.field) {
                f.alloc = Some((r.state.to_string(), r.func.to_string()));
            }
        }

        let mut whole_program = Vec::new();
        for r in tables.rows::<out::dtrans_whole_program>()? {
            let r = r?;
            whole_program.push((r.reason.to_string(), r.entity.to_string(), locate.location(r.entity)));
        }
        let program_ok = whole_program.is_empty();
        let mut unrecovered = Vec::new();
        for r in tables.rows::<out::dtrans_unrecovered>()? {
            unrecovered.push(r?.name.to_string());
        }
        unrecovered.sort();

        let mut types: Vec<TypeReport> = types.into_values().collect();
        for t in &mut types {
            t.verdict = transform::verdict(t, program_ok);
        }
        types.sort_by(|a, b| transform::usefulness(b).cmp(&transform::usefulness(a)).then(a.ty.cmp(&b.ty)));
        Ok(Report { types, whole_program, unrecovered })
    }
}

fn field_mut<'a>(
    types: &'a mut BTreeMap<String, TypeReport>,
    ty: &str,
    index: i32,
) -> Option<&'a mut FieldSummary> {
    types.get_mut(ty)?.fields.iter_mut().find(|f| f.index == index)
}

struct DTransResults {
    tables: Tables,
    report: Report,
}

impl DTransResults {
    pub fn report(&self) -> &Report {
        &self.report
    }
}

impl Results for DTransResults {
    fn summary(&self, _: &Session) -> Result<String> {
        Ok(render::summary_line(&self.report))
    }

    fn summary_json(&self, _: &Session) -> Result<serde_json::Value> {
        Ok(render::json(&self.report))
    }

    fn findings(&self, _: &Session) -> Result<Vec<Finding>> {
        Ok(vec![])
    }

    fn write(&self, dir: &Path, relations: &[&str]) -> Result<()> {
        self.tables.write(dir, relations)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The report of a `dtrans` run, from the results `DTRANS.run` gave.
pub fn report_of(results: &dyn Results) -> Option<&Report> {
    results.as_any().downcast_ref::<DTransResults>().map(DTransResults::report)
}
