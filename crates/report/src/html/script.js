// Pagination of large tables: rows are in the page, only PAGE of them are shown.
(function(){
  var errors=[];window.addEventListener('error',function(e){errors.push(String(e.message));document.body.setAttribute('data-errors',errors.join('|'));});
  document.querySelectorAll('table[data-page]').forEach(function(t){
    var page=parseInt(t.getAttribute('data-page'),10),rows=t.tBodies[0].rows,n=rows.length,cur=0;
    if(n<=page)return;
    var nav=document.createElement('div');nav.className='pager';
    var prev=document.createElement('button'),next=document.createElement('button'),info=document.createElement('span');
    prev.textContent='previous';next.textContent='next';nav.appendChild(prev);nav.appendChild(next);nav.appendChild(info);
    t.parentNode.insertBefore(nav,t);
    function show(){for(var i=0;i<n;i++)rows[i].style.display=(i>=cur*page&&i<(cur+1)*page)?'':'none';
      info.textContent='rows '+(cur*page+1)+'-'+Math.min(n,(cur+1)*page)+' of '+n;}
    prev.onclick=function(){if(cur>0){cur--;show();}};next.onclick=function(){if((cur+1)*page<n){cur++;show();}};show();
  });
  document.body.setAttribute('data-ready','1');
})();
