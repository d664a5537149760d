/**
 * The API reference page: one self-contained HTML document (no CDN, no external files) whose
 * small script fetches `openapi.json` next to it and renders operations and schemas.
 */

/** Styles of the page (inline; allowed by hash in the page's CSP). */
export const DOCS_STYLE = `
:root{--fg:#1d232b;--muted:#5d6875;--line:#d9dee4;--bg:#f6f8fa;--get:#1f6feb;--post:#1a7f37;--delete:#cf222e}
*{box-sizing:border-box}body{margin:0;font:14px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:var(--fg)}
header{padding:20px 32px;border-bottom:1px solid var(--line);background:var(--bg)}
header h1{margin:0 0 4px;font-size:22px}header .v{color:var(--muted);font-size:13px}
main{display:grid;grid-template-columns:260px minmax(0,1fr);gap:0}
nav{position:sticky;top:0;align-self:start;max-height:100vh;overflow:auto;padding:16px;border-right:1px solid var(--line)}
nav a{display:block;color:var(--fg);text-decoration:none;padding:2px 0;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}nav a:hover{text-decoration:underline}
nav .t{font-weight:600;margin-top:10px}
section{padding:8px 32px 24px}h2{border-bottom:1px solid var(--line);padding-bottom:4px}
details.op{border:1px solid var(--line);border-radius:6px;margin:8px 0;background:#fff}
details.op>summary{cursor:pointer;padding:8px 12px;display:flex;gap:10px;align-items:center;list-style:none}
.m{font:600 12px ui-monospace,monospace;color:#fff;border-radius:4px;padding:2px 8px;min-width:64px;text-align:center}
.m.get{background:var(--get)}.m.post{background:var(--post)}.m.delete{background:var(--delete)}
.p{font-family:ui-monospace,monospace;overflow-wrap:anywhere}.s{color:var(--muted)}.role{margin-left:auto;font-size:12px;color:var(--muted)}
.body{padding:4px 16px 12px;border-top:1px solid var(--line)}
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
code,.ty{font-family:ui-monospace,monospace;font-size:12.5px}.ty{color:#8250df}.req{color:var(--delete)}
ul.schema{list-style:none;padding-left:16px;margin:2px 0;border-left:1px dashed var(--line)}
.desc{color:var(--muted)}#err{color:var(--delete);padding:32px}
pre{background:var(--bg);border:1px solid var(--line);border-radius:4px;padding:8px;overflow:auto;max-height:360px;font-size:12px}
.try{border-top:1px dashed var(--line);margin-top:12px;padding-top:4px}.try label{display:block;margin:6px 0 2px;font-family:ui-monospace,monospace;font-size:12px}
.try input,.try textarea{width:100%;font:12.5px ui-monospace,monospace;padding:4px 6px;border:1px solid var(--line);border-radius:4px}.try textarea{min-height:140px}
.try button{margin-top:8px;padding:4px 14px;border:1px solid var(--line);border-radius:4px;background:#fff;cursor:pointer}.try .out{margin-top:8px}
#auth{display:flex;gap:8px;align-items:center;margin-top:8px}#auth input{width:420px;font:12.5px ui-monospace,monospace;padding:4px 6px;border:1px solid var(--line);border-radius:4px}
`;

/** The renderer (inline; allowed by hash in the page's CSP). Uses only DOM APIs, never innerHTML. */
export const DOCS_SCRIPT = `
(function(){
  function el(tag, attrs, kids){var e=document.createElement(tag);attrs=attrs||{};
    for(var k in attrs){if(k==='text')e.textContent=attrs[k];else e.setAttribute(k,attrs[k]);}
    (kids||[]).forEach(function(c){if(c)e.appendChild(typeof c==='string'?document.createTextNode(c):c);});return e;}
  function rich(text){var span=el('span');String(text||'').split(/(\`[^\`]+\`|\\*\\*[^*]+\\*\\*)/).forEach(function(part){
    if(/^\`.*\`$/.test(part))span.appendChild(el('code',{text:part.slice(1,-1)}));
    else if(/^\\*\\*.*\\*\\*$/.test(part))span.appendChild(el('b',{text:part.slice(2,-2)}));
    else span.appendChild(document.createTextNode(part));});return span;}
  function refName(ref){return ref.split('/').pop();}
  function typeOf(s){if(!s)return 'any';if(s.$ref)return refName(s.$ref);
    if(s.anyOf)return s.anyOf.map(typeOf).join(' | ');if(s.enum)return s.enum.map(function(v){return JSON.stringify(v);}).join(' | ');
    if(s.const!==undefined)return JSON.stringify(s.const);
    if(s.type==='array')return typeOf(s.items)+'[]';
    if(s.type==='object'&&s.additionalProperties&&!s.properties)return 'map<string, '+typeOf(s.additionalProperties)+'>';
    var t=s.type||'any';if(s.format)t+=' ('+s.format+')';
    var r=[];if(s.minimum!==undefined&&Math.abs(s.minimum)<1e15)r.push('≥ '+s.minimum);if(s.maximum!==undefined&&Math.abs(s.maximum)<1e15)r.push('≤ '+s.maximum);
    if(s.maxLength!==undefined)r.push('len ≤ '+s.maxLength);return r.length?t+' '+r.join(', '):t;}
  function inner(s){if(!s)return null;if(s.anyOf){for(var i=0;i<s.anyOf.length;i++){var x=inner(s.anyOf[i]);if(x)return x;}return null;}
    if(s.type==='array')return inner(s.items);if(s.type==='object'&&s.properties)return s;return null;}
  var DOC=null;
  function schemaView(s,expand){var box=el('div');
    if(s&&s.$ref){box.appendChild(el('a',{href:'#schema-'+refName(s.$ref),text:refName(s.$ref),class:'ty'}));
      var target=expand&&DOC?DOC.components.schemas[refName(s.$ref)]:null;if(target&&target.properties)box.appendChild(props(target));return box;}
    if(expand&&s&&s.type==='array'&&s.items&&s.items.$ref){box.appendChild(el('span',{class:'ty',text:'array of '}));box.appendChild(schemaView(s.items,true));return box;}
    box.appendChild(el('span',{class:'ty',text:typeOf(s)}));var o=inner(s);if(o)box.appendChild(props(o));return box;}
  function props(o){var ul=el('ul',{class:'schema'});var req=o.required||[];
    Object.keys(o.properties).forEach(function(k){var p=o.properties[k];
      var li=el('li',{},[el('code',{text:k}),req.indexOf(k)>=0?el('span',{class:'req',text:' *'}):null,' ']);
      if(p.$ref)li.appendChild(el('a',{href:'#schema-'+refName(p.$ref),class:'ty',text:refName(p.$ref)}));
      else{li.appendChild(el('span',{class:'ty',text:typeOf(p)}));}
      if(p.description)li.appendChild(el('span',{class:'desc'},[' — ',rich(p.description)]));
      var o2=p.$ref?null:inner(p);if(o2)li.appendChild(props(o2));ul.appendChild(li);});return ul;}
  function operation(path,method,op){var body=el('div',{class:'body'});
    if(op.description)body.appendChild(el('p',{},[rich(op.description)]));
    if(op.parameters){var t=el('table',{},[el('tr',{},[el('th',{text:'parameter'}),el('th',{text:'in'}),el('th',{text:'type'}),el('th',{text:'description'})])]);
      op.parameters.forEach(function(p){t.appendChild(el('tr',{},[el('td',{},[el('code',{text:p.name}),p.required?el('span',{class:'req',text:' *'}):null]),
        el('td',{text:p.in}),el('td',{class:'ty',text:typeOf(p.schema)}),el('td',{},[rich(p.description)])]));});
      body.appendChild(el('h4',{text:'Parameters'}));body.appendChild(t);}
    if(op.requestBody){body.appendChild(el('h4',{text:'Request body'+(op.requestBody.required?'':' (optional)')}));
      body.appendChild(schemaView(op.requestBody.content['application/json'].schema,true));}
    body.appendChild(el('h4',{text:'Responses'}));var rt=el('table');
    Object.keys(op.responses).forEach(function(code){var r=op.responses[code];var c=r.content?Object.keys(r.content)[0]:null;
      rt.appendChild(el('tr',{},[el('td',{},[el('code',{text:code})]),el('td',{},[rich(r.description)]),
        el('td',{},[c?schemaView(r.content[c].schema,/^2/.test(code)):el('span',{class:'s',text:'no body'})])]));});
    body.appendChild(rt);
    var ok=Object.keys(op.responses).filter(function(c){return /^2/.test(c);})[0];var media=ok&&op.responses[ok].content;
    var mt=media?Object.keys(media)[0]:null;if(mt&&media[mt].example!==undefined){body.appendChild(el('h4',{text:'Example answer ('+ok+')'}));
      body.appendChild(el('pre',{text:typeof media[mt].example==='string'?media[mt].example:JSON.stringify(media[mt].example,null,2)}));}
    body.appendChild(tryIt(path,method,op));
    var sec=(op.security||[]).length===0?'public':'role '+op['x-required-role'];
    return el('details',{class:'op',id:op.operationId},[el('summary',{},[el('span',{class:'m '+method,text:method.toUpperCase()}),
      el('span',{class:'p',text:path}),el('span',{class:'s',text:op.summary||''}),el('span',{class:'role',text:sec})]),body]);}
  var AUTH=null;
  function tryIt(path,method,op){var box=el('div',{class:'try'},[el('h4',{text:'Try it'})]);var inputs={};
    (op.parameters||[]).forEach(function(p){var id='try-'+op.operationId+'-'+p.name;
      var input=el('input',{id:id,name:p.name,'data-in':p.in,placeholder:p.required?'required':'optional'});
      if(p.example!==undefined)input.value=String(p.example);inputs[p.name]=input;
      box.appendChild(el('label',{for:id,text:p.name+' ('+p.in+')'}));box.appendChild(input);});
    var text=null;if(op.requestBody){var bid='try-'+op.operationId+'-body';text=el('textarea',{id:bid,spellcheck:'false'});
      var ex=op.requestBody.content['application/json'].example;text.value=ex===undefined?'{}':JSON.stringify(ex,null,2);
      box.appendChild(el('label',{for:bid,text:'body (JSON)'}));box.appendChild(text);}
    var out=el('pre',{class:'out',hidden:'hidden'});
    var send=el('button',{type:'button',text:'Send '+method.toUpperCase()});
    send.addEventListener('click',function(){var url=path.replace(/\\{([^}]+)\\}/g,function(_,n){
        var v=inputs[n]?inputs[n].value:'';return n==='path'?v.split('/').map(encodeURIComponent).join('/'):encodeURIComponent(v);});
      var q=[];(op.parameters||[]).forEach(function(p){if(p.in==='query'&&inputs[p.name].value!=='')q.push(encodeURIComponent(p.name)+'='+encodeURIComponent(inputs[p.name].value));});
      if(q.length)url+='?'+q.join('&');
      var headers={accept:'application/json'};var a=AUTH&&AUTH.value.trim();if(a)headers.authorization=a;
      var init={method:method.toUpperCase(),headers:headers,cache:'no-store',credentials:'omit'};
      if(text){headers['content-type']='application/json';init.body=text.value;}
      out.hidden=false;out.textContent=init.method+' '+url+' …';send.disabled=true;
      fetch(url,init).then(function(r){return r.text().then(function(t){var shown=t;
          try{shown=JSON.stringify(JSON.parse(t),null,2);}catch(e){}
          out.textContent='HTTP '+r.status+' '+r.statusText+'\\n'+(shown.length>20000?shown.slice(0,20000)+'\\n…':shown);});},
        function(e){out.textContent='request failed: '+e.message;}).then(function(){send.disabled=false;});});
    box.appendChild(send);box.appendChild(out);return box;}
  function render(doc){DOC=doc;document.title=doc.info.title+' API';var hdr=document.querySelector('header');
    hdr.appendChild(el('h1',{text:doc.info.title}));hdr.appendChild(el('div',{class:'v',text:'version '+doc.info.version+' · OpenAPI '+doc.openapi}));
    doc.info.description.split('\\n\\n').forEach(function(par){hdr.appendChild(el('p',{},[rich(par)]));});
    AUTH=el('input',{id:'try-auth',type:'password',autocomplete:'off',placeholder:'Bearer <token> or Basic <base64> — kept in this page only'});
    hdr.appendChild(el('div',{id:'auth'},[el('label',{for:'try-auth',text:'Authorization for try-it:'}),AUTH]));
    var nav=document.querySelector('nav'),content=document.querySelector('#content');
    (doc.tags||[]).forEach(function(tag){var sec=el('section',{id:'tag-'+tag.name.replace(/\\W+/g,'-')},[el('h2',{text:tag.name}),el('p',{class:'s',text:tag.description||''})]);
      nav.appendChild(el('a',{class:'t',href:'#'+sec.id,text:tag.name}));
      Object.keys(doc.paths).forEach(function(path){Object.keys(doc.paths[path]).forEach(function(m){var op=doc.paths[path][m];
        if((op.tags||[])[0]!==tag.name)return;sec.appendChild(operation(path,m,op));
        nav.appendChild(el('a',{href:'#'+op.operationId,title:m.toUpperCase()+' '+path,text:op.summary||op.operationId}));});});
      content.appendChild(sec);});
    var schemas=el('section',{id:'schemas'},[el('h2',{text:'Schemas'})]);nav.appendChild(el('a',{class:'t',href:'#schemas',text:'Schemas'}));
    Object.keys(doc.components.schemas).forEach(function(name){schemas.appendChild(el('div',{id:'schema-'+name},[el('h3',{text:name}),schemaView(doc.components.schemas[name])]));});
    content.appendChild(schemas);
    if(location.hash){var t=document.getElementById(location.hash.slice(1));if(t){if(t.tagName==='DETAILS')t.open=true;t.scrollIntoView();}}}
  window.addEventListener('hashchange',function(){var t=document.getElementById(location.hash.slice(1));if(t&&t.tagName==='DETAILS')t.open=true;});
  fetch('openapi.json',{headers:{accept:'application/json'}}).then(function(r){if(!r.ok)throw new Error('HTTP '+r.status);return r.json();})
    .then(render).catch(function(e){document.querySelector('#content').appendChild(el('div',{id:'err',text:'Could not load openapi.json: '+e.message}));});
})();
`;

/** The page (served at `/coord/v1/docs`; the script loads `openapi.json` relative to it). */
export function docsPageHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>redis-stream-coordinator API</title>
<style>${DOCS_STYLE}</style>
</head>
<body>
<header><a class="v" href="/console">Web console →</a></header>
<main><nav></nav><div id="content"></div></main>
<script>${DOCS_SCRIPT}</script>
</body>
</html>
`;
}
