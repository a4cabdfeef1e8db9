/// The stats page's style sheet, inlined in its head: system fonts only, no external asset.
enum StatsHTMLStyle {
    static let css = """
        :root{--ink:#1d2433;--soft:#5b6478;--line:#d9dee8;--card:#fff;--page:#f3f5f9;--blue:#3b6fd8;--green:#2f9e6f;
        --amber:#d98a1c;--red:#c93a3a;--grey:#b8c0cf}
        *{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;padding:24px;
        color:var(--ink);background:var(--page)}
        header h1{margin:0;font-size:22px}header .path{margin:4px 0 0;font-family:ui-monospace,monospace;overflow:hidden;
        text-overflow:ellipsis;white-space:nowrap}.sub{margin:2px 0 16px;color:var(--soft)}
        .overview,.grid,.pair{display:grid;grid-template-columns:repeat(auto-fit,minmax(560px,1fr));gap:16px;margin-bottom:16px}
        .pair{grid-template-columns:repeat(auto-fit,minmax(420px,1fr));margin:0}
        .card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 18px;min-width:0;overflow-x:auto}
        .card.wide{margin-bottom:16px}h2{font-size:16px;margin:0 0 10px}h3{font-size:13px;margin:10px 0 4px;color:var(--soft)}
        svg{display:block;margin:4px 0 6px;max-width:100%;height:auto}svg text{font:12px system-ui,sans-serif;fill:var(--ink)}
        svg text.value{fill:var(--soft)}.axis{stroke:var(--line)}
        rect.entries{fill:var(--blue)}rect.bytes{fill:var(--green)}rect.fetched{fill:var(--blue)}rect.cached{fill:var(--green)}
        rect.revalidated{fill:var(--amber)}rect.failed{fill:var(--red)}rect.duration{fill:#7a5cc7}
        g[data-mark]:hover rect{opacity:.75}
        .swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin:0 4px 0 10px;vertical-align:-1px}
        .swatch.entries,.swatch.fetched{background:var(--blue)}.swatch.bytes,.swatch.cached{background:var(--green)}
        .swatch.revalidated{background:var(--amber)}.swatch.failed{background:var(--red)}.legend{margin:0;color:var(--soft)}
        .dial{fill:none;stroke:var(--grey);stroke-width:22}.dial-ok{fill:none;stroke:var(--blue);stroke-width:22}
        .dial-near{fill:none;stroke:var(--amber);stroke-width:22}.dial-over{fill:none;stroke:var(--red);stroke-width:22}
        svg text.dial-value{font-size:26px;font-weight:600}.gauge.over{border-color:var(--red);background:#fff5f5}
        .gauge.over svg text.dial-value{fill:var(--red)}.cap{margin:0;color:var(--soft)}
        .warning{margin:8px 0 0;padding:8px 10px;border-radius:6px;background:var(--red);color:#fff;font-weight:600}
        dl{display:grid;grid-template-columns:max-content 1fr;gap:3px 14px;margin:0}dt{color:var(--soft)}dd{margin:0;
        overflow-wrap:anywhere}
        table{border-collapse:collapse;width:100%;table-layout:auto}th,td{padding:3px 10px;text-align:left;
        border-bottom:1px solid var(--line)}th{color:var(--soft);font-weight:600}td.n{text-align:right;white-space:nowrap;
        font-variant-numeric:tabular-nums}td.name{max-width:640px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
        .none{color:var(--soft);margin:0}.more{color:var(--soft);margin:0}
        """
}
