fn main() {
    let args: Vec<String> = std::env::args().collect();
    let c = gclab_lang::load(std::path::Path::new(&args[1])).unwrap();
    for (i, k) in c.codes.iter().enumerate() {
        if args[2..].iter().any(|n| k.name.starts_with(n.as_str())) {
            println!("code {i} {} arity {} free {} frame {} body {}", k.name, k.arity, k.free, k.frame, k.body);
            let mut todo = vec![k.body];
            let mut seen = std::collections::HashSet::new();
            while let Some(i) = todo.pop() {
                if !seen.insert(i) { continue; }
                let ir = &c.ir[i as usize];
                println!("  {i}: {ir:?}");
                match ir {
                    gclab_lang::ir::Ir::Case { scrut, alts, default, .. } => { todo.push(*scrut); todo.extend(alts.iter().map(|a| a.2)); todo.extend(*default); }
                    gclab_lang::ir::Ir::Let(_, b, _) => todo.push(*b),
                    gclab_lang::ir::Ir::WordPrim { slow, .. } => todo.push(*slow),
                    gclab_lang::ir::Ir::CaseWordPrim { case, .. } => todo.push(*case),
                    _ => {}
                }
            }
        }
    }
}
